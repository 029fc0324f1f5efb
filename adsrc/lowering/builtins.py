"""Calls to control-flow primitives and to builtins that pass values through, during normalization.

`adsrc.cond`, `scan`, `while_loop` and `fori_loop` are written out as
`If`/`For`/`While` with their function arguments called (and inlined later
when they are nested functions or lambdas). `map` and `filter` become loops
building a list, `functools.reduce` a loop carrying its accumulator; `zip`,
`enumerate`, `reversed`, `sorted` and `dict` used as values become helpers
with derivative rules (rules/containers.py).
"""

import inspect

import gast

from .. import astutil
from .. import rules as rules_mod
from ..ir import nodes as ir
from .tables import _defaults_read_variables


class Primitives:
    """Mixin of the Normalizer (through Calls)."""

    def _prim_args(self, e, order, name):
        bound = dict(zip(order, e.args))
        for k in e.keywords:
            if k.arg not in order or k.arg in bound:
                raise self.error(e, f"adsrc.{name} got an unexpected argument `{k.arg}`.", None)
            bound[k.arg] = k.value
        return bound

    def _call_fn(self, fn_node, args, target):
        call = gast.Call(func=fn_node, args=args, keywords=[])
        call.lineno, call.col_offset = getattr(fn_node, "lineno", None), getattr(fn_node, "col_offset", 0)
        self.call(call, target)

    def _fn(self, node):
        return self.atom(node) if isinstance(node, gast.Lambda) else node

    def prim_cond(self, e, target):
        if len(e.args) < 3:
            raise self.error(e, "adsrc.cond needs pred, true_fun and false_fun.", None)
        pred = self.raw(e.args[0])
        true_fn, false_fn = self._fn(e.args[1]), self._fn(e.args[2])
        operands = [self.atom(a) for a in e.args[3:]]
        target = target or self.temp("cond")
        body = self.sub_block(lambda: self._call_fn(true_fn, operands, target))
        orelse = self.sub_block(lambda: self._call_fn(false_fn, operands, target))
        self.emit(ir.If(pred, body, orelse), e)

    def prim_while_loop(self, e, target):
        b = self._prim_args(e, ["cond_fun", "body_fun", "init_val"], "while_loop")
        if len(b) < 3:
            raise self.error(e, "adsrc.while_loop needs cond_fun, body_fun and init_val.", None)
        cond_fn, body_fn = self._fn(b["cond_fun"]), self._fn(b["body_fun"])
        carry = self.temp("carry")
        self.value(b["init_val"], carry)
        test = self.temp("test")
        test_body = self.sub_block(lambda: self._call_fn(cond_fn, [astutil.name(carry)], test))
        body = self.sub_block(lambda: self._call_fn(body_fn, [astutil.name(carry)], carry))
        self.emit(ir.While(test_body, astutil.name(test), body), e)
        if target is not None:
            self.emit(ir.Copy(target, astutil.name(carry)), e)

    def prim_fori_loop(self, e, target):
        b = self._prim_args(e, ["lower", "upper", "body_fun", "init_val"], "fori_loop")
        if len(b) < 4:
            raise self.error(e, "adsrc.fori_loop needs lower, upper, body_fun and init_val.", None)
        body_fn = self._fn(b["body_fun"])
        val = self.temp("val")
        self.value(b["init_val"], val)
        i = self.temp("i")
        body = self.sub_block(lambda: self._call_fn(body_fn, [astutil.name(i), astutil.name(val)], val))
        self.emit(ir.For(i, ir.RangeIter([self.raw(b["lower"]), self.raw(b["upper"])]), body), e)
        if target is not None:
            self.emit(ir.Copy(target, astutil.name(val)), e)

    def prim_scan(self, e, target):
        b = self._prim_args(e, ["f", "init", "xs", "length", "reverse"], "scan")
        if "f" not in b or "init" not in b:
            raise self.error(e, "adsrc.scan needs f and init.", None)
        reverse = b.get("reverse")
        if reverse is not None and not astutil.is_constant_literal(reverse):
            raise self.error(e, "adsrc.scan needs `reverse` to be a constant True or False.", None)
        rev = bool(reverse is not None and astutil.literal_value(reverse))
        fn = self._fn(b["f"])
        carry = self.temp("carry")
        self.value(b["init"], carry)
        xs = b.get("xs")
        xs = None if xs is None or (isinstance(xs, gast.Constant) and xs.value is None) else self.atom(xs)
        n = self.temp("n")
        length = self.raw(b["length"]) if "length" in b else astutil.const(None)
        self.emit(ir.Const(n, astutil.call(astutil.name(self.namer.helper("scan_length")),
                                           [xs if xs is not None else astutil.const(None), length])), e)
        ys = self.temp("ys")
        self.emit(ir.Pack(ys, gast.List(elts=[], ctx=gast.Load())), e)
        i, x, out, y = self.temp("i"), self.temp("x"), self.temp("out"), self.temp("y")

        def body():
            if xs is not None:
                self.emit(ir.ScanSlice(x, astutil.call(astutil.name(self.namer.helper("scan_slice")),
                                                       [xs, astutil.name(i)])), e)
            else:
                self.emit(ir.Const(x, astutil.const(None)), e)
            self._call_fn(fn, [astutil.name(carry), astutil.name(x)], out)
            self.emit(ir.Copy((carry, y), astutil.name(out)), e)
            self.emit(ir.MutatingCall(None, ys, "append", [astutil.name(y)]), e)

        steps = [astutil.name(n)] if not rev else \
            [gast.BinOp(left=astutil.name(n), op=gast.Sub(), right=astutil.const(1)), astutil.const(-1),
             astutil.const(-1)]
        self.emit(ir.For(i, ir.RangeIter(steps), self.sub_block(body)), e)
        if rev:
            rys = self.temp("ys")
            self.emit(ir.GetItem(rys, gast.Subscript(value=astutil.name(ys), ctx=gast.Load(),
                                                     slice=gast.Slice(lower=None, upper=None,
                                                                      step=astutil.const(-1)))), e)
            ys = rys
        stacked = self.temp("ys")
        self.helper_apply(stacked, "stack_ys", [astutil.name(ys)], e)
        self.emit_op(ir.Pack, target, astutil.tuple_([astutil.name(carry), astutil.name(stacked)]), e)

    # -- builtins that pass values through -----------------------------------------------------------------
    def b_map(self, e, target):
        if len(e.args) < 2 or e.keywords or any(isinstance(a, gast.Starred) for a in e.args):
            raise self.error(e, "adsrc follows `map(f, xs, ...)` only with its arguments written out.", None)
        fn = self._fn(e.args[0])
        self.loop_over(e, e.args[1:], target, lambda items: self._call_value(fn, items))

    def b_filter(self, e, target):
        if len(e.args) != 2 or e.keywords:
            raise self.error(e, "adsrc follows `filter(f, xs)` only with two arguments.", None)
        fn = None if isinstance(e.args[0], gast.Constant) and e.args[0].value is None else self._fn(e.args[0])

        def keep(items):
            item = items[0]
            return item, (item if fn is None else self._call_value(fn, items))
        self.loop_over(e, e.args[1:], target, keep, conditional=True)

    def b_reduce(self, e, target):
        """functools.reduce(f, xs[, initial]): a loop `acc = f(acc, item)` from the initial value, or from the
        first item over the rest."""
        if len(e.args) not in (2, 3) or e.keywords or any(isinstance(a, gast.Starred) for a in e.args):
            raise self.error(e, "adsrc follows `functools.reduce(f, xs[, initial])` only with its arguments "
                                "written out by position.", None)
        fn = self._fn(e.args[0])
        entries = self.table_entries(e.args[1]) if len(e.args) == 3 else None
        if entries is not None and not entries[0] and \
                not any(_defaults_read_variables(v) for _, v in entries[1]):
            # over a list of functions (`reduce(lambda acc, f: f(acc), [np.sin, g], x)`): one call per function,
            # each followed
            acc = self.temp("acc")
            self.value(e.args[2], acc)
            for _, entry in entries[1]:
                self._call_fn(fn, [astutil.name(acc), astutil.clone(entry)], acc)
            return self.emit_op(ir.Copy, target, astutil.name(acc), e)
        it = self.iteration(e.args[1])
        acc, index, item = self.temp("acc"), self.temp("i"), self.temp("item")
        if len(e.args) == 3:
            self.value(e.args[2], acc)
        else:
            self.bind_item(it, astutil.const(0), acc, e)

        def body():
            self.bind_item(it, astutil.name(index), item, e)
            self._call_fn(fn, [astutil.name(acc), astutil.name(item)], acc)
        start = astutil.const(0 if len(e.args) == 3 else 1)
        self.emit(ir.For(index, ir.RangeIter([start, self.length(it)]), self.sub_block(body)), e)
        self.emit_op(ir.Copy, target, astutil.name(acc), e)

    def _call_value(self, fn, args):
        t = self.temp("mapped")
        self._call_fn(fn, args, t)
        return astutil.name(t)

    def loop_over(self, e, seqs, target, make, conditional=False):
        """target = [make(items) for items in zip(*seqs)] (with a test when conditional)."""
        result = self.temp("comp")
        self.emit(ir.Pack(result, gast.List(elts=[], ctx=gast.Load())), e)
        it = self.zip_iteration([self.iteration(s) for s in seqs])
        names = [self.temp("item") for _ in seqs]
        tgt = names[0] if len(names) == 1 else tuple(names)

        def body():
            value = make([astutil.name(n) for n in names])
            if conditional:
                item, test = value
                self.emit(ir.If(test, self.sub_block(
                    lambda: self.emit(ir.MutatingCall(None, result, "append", [item]), e)), []), e)
            else:
                self.emit(ir.MutatingCall(None, result, "append", [value]), e)
        self.emit_for(tgt, it, body, [], e)
        self.emit_op(ir.Copy, target, astutil.name(result), e)

    def b_zip(self, e, target):
        if any(k.arg != "strict" for k in e.keywords):
            raise self.error(e, "adsrc follows `zip(...)` with no keyword but `strict`.", None)
        strict = next((k.value for k in e.keywords), None)
        if len(e.args) == 1 and isinstance(e.args[0], gast.Starred):
            rows = self.atom(e.args[0].value)
        elif any(isinstance(a, gast.Starred) for a in e.args):
            raise self.error(e, "adsrc follows `zip(*seqs)` only with one starred argument.", None)
        else:
            rows = self.atom(astutil.tuple_([gast.Call(func=astutil.name("list"), args=[a], keywords=[])
                                             for a in e.args]))
        if strict is not None:       # zip(..., strict=True): the lengths are checked when it runs, as Python does
            self.emit(ir.Effect(astutil.call(astutil.name(self.namer.helper("check_zip_lengths")),
                                             [astutil.clone(rows), self.raw(strict)])), e)
        self.helper_apply(target, "zip_star", [rows], e)

    def b_enumerate(self, e, target):
        start = e.args[1] if len(e.args) > 1 else next((k.value for k in e.keywords if k.arg == "start"),
                                                      astutil.const(0))
        seq = self.atom(gast.Call(func=astutil.name("list"), args=[e.args[0]], keywords=[]))
        self.helper_apply(target, "enumerate_list", [seq, self.raw(start)], e)

    def b_reversed(self, e, target):
        seq = self.sequence(e.args[0])
        self.helper_apply(target, "reversed_list", [seq], e)

    def b_sorted(self, e, target):
        kws = {k.arg: k.value for k in e.keywords}
        if len(e.args) != 1 or set(kws) - {"key", "reverse"}:
            raise self.error(e, "adsrc follows `sorted(xs, key=..., reverse=...)` only.", None)
        seq = self.atom(gast.Call(func=astutil.name("list"), args=[e.args[0]], keywords=[]))
        reverse = self.raw(kws.get("reverse", astutil.const(False)))
        if "key" in kws and not (isinstance(kws["key"], gast.Constant) and kws["key"].value is None):
            keys = self.temp("keys")
            key_fn = self._fn(kws["key"])
            self.loop_over(e, [seq], keys, lambda items: self._call_value(key_fn, items))
            keys = astutil.name(keys)
        else:
            keys = seq
        self.helper_apply(target, "sorted_by", [seq, keys, reverse], e)

    def b_dict(self, e, target):
        if any(k.arg is None for k in e.keywords) or len(e.args) > 1:
            raise self.error(e, "adsrc follows `dict(...)` with one mapping or pairs argument, or keywords.", None)
        if not e.args:
            keys = [astutil.const(k.arg) for k in e.keywords]
            return self.emit_op(ir.Pack, target, gast.Dict(keys=keys, values=[self.atom(k.value) for k in
                                                                                e.keywords]), e)
        base = self.atom(e.args[0])
        if e.keywords:
            tmp = self.temp("dct")
            self.helper_apply(tmp, "dict_of", [base], e)
            for k in e.keywords:
                self.emit(ir.SetItem(tmp, astutil.const(k.arg), self.atom(k.value)), e)
            return self.emit_op(ir.Copy, target, astutil.name(tmp), e)
        self.helper_apply(target, "dict_of", [base], e)

    def b_setattr(self, e, target):
        """`setattr(obj, name, value)` or `object.__setattr__(obj, name, value)` (a frozen dataclass's
        __post_init__) with a name known when transforming: the assignment `obj.name = value`."""
        name = self.getattr_read(gast.Call(func=e.func, args=e.args[:2], keywords=[])) \
            if len(e.args) == 3 and not e.keywords and self.static(e.args[0]) is rules_mod.NOT_STATIC else None
        if name is None:        # (on an object known when transforming, a class: run for its effect, as before)
            return self.emit_op(ir.Opaque, target, self.plain_call(e, e.func), e, describe="`setattr`",
                                hint="Assign the attribute with a name known when transforming: `obj.name = value`.")
        store = gast.Attribute(value=name.value, attr=name.attr, ctx=gast.Store())
        self.statement(gast.fix_missing_locations(gast.copy_location(
            gast.Assign(targets=[store], value=e.args[2], type_comment=None), e)))
        if target is not None:
            self.emit(ir.Const(target, astutil.const(None)), e)

    def getattr_read(self, e):
        """`getattr(obj, name)` with a name known when transforming (a literal, a static argument, a global or
        the target of a loop adsrc unrolls), as the expression `obj.name`; with a default, when obj is known then
        too (a module or a class), or `obj.name if hasattr(obj, name) else default`. None otherwise."""
        if e.keywords or len(e.args) not in (2, 3) or any(isinstance(a, gast.Starred) for a in e.args):
            return None
        name = astutil.literal_value(e.args[1]) if astutil.is_constant_literal(e.args[1]) else self.static(e.args[1])
        if not isinstance(name, str) or not name.isidentifier():
            return None
        read = gast.Attribute(value=e.args[0], attr=name, ctx=gast.Load())
        if len(e.args) == 2:
            return read
        obj = self.static(e.args[0])
        if obj is not rules_mod.NOT_STATIC:
            return read if hasattr(obj, name) else e.args[2]
        if not isinstance(e.args[0], (gast.Name, gast.Attribute)):
            return None
        has = gast.Call(func=gast.Name(id="hasattr", ctx=gast.Load(), annotation=None, type_comment=None),
                        args=[astutil.clone(e.args[0]), astutil.const(name)], keywords=[])
        return gast.IfExp(test=has, body=read, orelse=e.args[2])      # (obj read twice: a name or a field)

    def b_next(self, e, target):
        """next(gen(x)) of a generator function (read as the list of what it yields): its first item."""
        arg = e.args[0] if len(e.args) == 1 and not e.keywords else None
        fn = self.static(arg.func) if isinstance(arg, gast.Call) else None
        if getattr(getattr(fn, "__code__", None), "co_flags", 0) & inspect.CO_GENERATOR:
            return self.value(gast.Subscript(value=arg, slice=astutil.const(0), ctx=gast.Load()),
                              target or self.temp("_"))
        return self.emit_op(ir.Opaque, target, self.plain_call(e, e.func), e, describe="`next(...)`",
                            hint="adsrc follows `next(f(...))` of a generator function f; for other iterators, "
                                 "index a list instead.")

    def b_getattr(self, e, target):
        attribute = self.getattr_read(e)
        if attribute is not None:
            return self.value(attribute, target or self.temp("_"))
        return self.emit_op(ir.Opaque, target, self.plain_call(e, e.func), e, describe="`getattr`",
                            hint="Read the attribute with a constant name: `obj.name`.")
