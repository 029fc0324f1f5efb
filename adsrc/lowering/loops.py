"""`for` loops during normalization: every loop becomes a loop over a `range`.

`for x in xs` becomes `for i in range(len(xs)): x = xs[i]`, and
`enumerate`, `zip` and `reversed` (nested too) bind their targets by
position the same way, so every value a loop reads is an ordinary indexing
operation that the alias analysis and the differentiator see. A loop over a
`range` into a name stays as it is.
"""


import gast

from .. import astutil, rules as rules_mod
from ..ir import nodes as ir
from . import object_classes
from .tables import _never_changed as never_changed


class _Range:
    def __init__(self, args):
        self.args = args


class _Seq:
    def __init__(self, seq):
        self.seq = seq


class _Enumerate:
    def __init__(self, inner, start):
        self.inner, self.start = inner, start


class _Zip:
    def __init__(self, inners):
        self.inners = inners


class _Reversed:
    def __init__(self, inner):
        self.inner = inner


class _DictView:
    """d.items() / d.values(): the keys taken once, each value read from d when its iteration starts
    (Python's views are live: a value the body assigns to a later key is the one that key yields)."""

    def __init__(self, mapping, keys, kind):
        self.mapping, self.keys, self.kind = mapping, keys, kind


def _exprs(it):
    if isinstance(it, _Range):
        return list(it.args)
    if isinstance(it, _Seq):
        return [it.seq]
    if isinstance(it, _Enumerate):
        return _exprs(it.inner) + ([it.start] if it.start is not None else [])
    if isinstance(it, _Zip):
        return [e for inner in it.inners for e in _exprs(inner)]
    if isinstance(it, _DictView):
        return [it.mapping, it.keys]
    return _exprs(it.inner)


class Loops:
    """Mixin of the Normalizer: iterations and `for` loops."""

    def iteration(self, it):
        """An iteration form: range/enumerate/zip/reversed stay structured, anything else is a sequence."""
        if isinstance(it, gast.Call) and not any(isinstance(a, gast.Starred) for a in it.args) and \
                all(k.arg for k in it.keywords):
            fn = self.static(it.func)
            if fn is range and not it.keywords:
                return _Range([self.raw(a) for a in it.args])
            if fn is enumerate and it.args and len(it.args) + len(it.keywords) <= 2:
                start = it.args[1] if len(it.args) > 1 else next((k.value for k in it.keywords), None)
                return _Enumerate(self.iteration(it.args[0]), start and self.raw(start))
            if fn is zip and it.args and not it.keywords:
                return _Zip([self.iteration(a) for a in it.args])
            if fn is reversed and len(it.args) == 1:
                return _Reversed(self.iteration(it.args[0]))
        if self.is_dict_view(it) and it.func.attr != "keys" and isinstance(it.func.value, gast.Name) \
                and self.static(it.func.value) is rules_mod.NOT_STATIC and self.known_class(it.func.value) is None:
            mapping = self.atom(it.func.value)
            keys = self.temp(mapping.id + "_keys")
            # the keys: constants to the differentiator (a dict's keys have no gradient)
            self.emit(ir.Const(keys, astutil.call("list", [astutil.name(mapping.id)])), it)
            return _DictView(mapping, astutil.name(keys), it.func.attr)
        return _Seq(self.sequence(it))

    def stmt_For(self, s):
        if self.unroll_objects(s):
            return
        it = self.iteration(s.iter)
        # Python evaluates the iterable once: the loop must not see names the body rebinds
        rebound = astutil.names_stored(gast.Module(body=s.body, type_ignores=[])) | \
            astutil.names_stored(s.target)
        reads = set().union(*(astutil.names_loaded(e) for e in _exprs(it)))
        snapshot = {n: self.temp(n + "_iter") for n in sorted(reads & rebound)}
        for n, snap in snapshot.items():
            self.emit(ir.Copy(snap, astutil.name(n)), s.iter)
        for e in _exprs(it):
            astutil.rename(e, snapshot)
        target = astutil.target_spec(s.target)
        if target is None:
            raise self.error(s.target, "this loop target is not supported.",
                             "Loop over names or tuples of names, e.g. `for i, x in enumerate(xs):`.")
        self.note_unknown_length(s.target, s.iter)       # for f in fs: f(x), fs of lambdas over range(n)
        known = self.loop_element_classes(s.target, s.iter)
        for name, cls, iterable in known:
            self.local_classes[name] = cls       # its methods are followed
            inner = self.element_field_classes(iterable)
            if inner:           # `blocks = [Residual(Linear(W1)), Residual(Linear(W2))]`: what their fields hold
                self.known_field_classes[name] = inner

        def body():
            for name, cls, _ in known:
                self.check_class(name, cls, s.target)
            self.out.extend(self.block(s.body))
        self.emit_for(target, it, body, self.block(s.orelse), s)

    def loop_element_classes(self, target, iterable):
        """[(name, class, its iterable)] of the loop's targets bound to objects of one known class each:
        `for layer in layers:`, and each of `for p, f in zip(self.particles, forces):`."""
        if isinstance(iterable, gast.Call) and self.static(iterable.func) is zip and not iterable.keywords and \
                isinstance(target, gast.Tuple) and len(target.elts) == len(iterable.args) and \
                not any(isinstance(a, gast.Starred) for a in iterable.args):
            return [k for t, a in zip(target.elts, iterable.args) for k in self.loop_element_classes(t, a)]
        known = self.loop_element_class(target, iterable)
        return [] if known is None else [(known[0], known[1], iterable)]

    def unroll_objects(self, s):
        """`for layer in layers:` over a list of objects known when transforming: one copy of the body per
        object, with `layer` known, so `layer.forward(x)` calls each object's own method.

        enumerate/zip/reversed around such lists unroll the same way."""
        if s.orelse or _jumps(s.body):
            return False
        plan = self.unroll_plan(s.iter) or self.functions_display(s.iter) or self.objects_named(s.iter, True)
        if plan is None or not (plan[0] in ("display", "objects") or _has_objects(plan) or
                                _names_attributes(plan, s)):
            return False
        n = _plan_length(plan)
        if n is None or n > 32:
            return False
        for k in range(n):
            self.unrolled_target(s.target, _plan_item(plan, k), s)
            # (names the body binds to constructions of the target, `obj = cls(x)`, are of this copy's class)
            self.__dict__.pop("_stable_classes", None)
            for inner in astutil.clone(s.body):
                self.stmt = inner
                self.statement(inner)
            self.stmt = s
        self.__dict__.pop("_stable_classes", None)
        return True

    def unroll_plan(self, node):
        """The shape of an iteration whose length is known when transforming, or None."""
        if isinstance(node, gast.Call) and not node.keywords and node.args and \
                not any(isinstance(a, gast.Starred) for a in node.args):
            fn = self.static(node.func)
            inner = [self.unroll_plan(a) or self.functions_display(a) or self.objects_named(a) for a in node.args]
            if fn is enumerate and len(node.args) <= 2 and inner[0] is not None:
                start = node.args[1] if len(node.args) == 2 else astutil.const(0)
                if isinstance(start, gast.Constant) and type(start.value) is int:
                    return ("enumerate", inner[0], start.value)
                return None
            if fn is zip and any(p is not None for p in inner):
                return ("zip", [p if p is not None else ("seq", None, a) for p, a in zip(inner, node.args)])
            if fn is reversed and len(node.args) == 1 and inner[0] is not None:
                return ("reversed", inner[0])
            return None
        from ..frontend import static_sequence
        if isinstance(node, (gast.Tuple, gast.List)) and node.elts and all(
                isinstance(e, gast.Constant) and isinstance(e.value, str) for e in node.elts):
            return ("seq", [e.value for e in node.elts], node)        # ("w", "b"): names of attributes
        values = static_sequence(node, self.uf, self.is_local) if isinstance(
            node, (gast.Name, gast.Attribute, gast.Subscript)) else None
        return None if values is None else ("seq", values, node)

    def functions_display(self, node):
        """`for fn in (np.sin, np.cos):`, `[lambda v: v, lambda v: v ** 2]` or `[MSE(), L1()]`: a tuple or list
        display of functions (known when transforming, or lambdas) or of new objects, unrolled so that each call
        `fn(x)` or `loss.total(x)` is followed. A name bound once to a display of functions, never changed
        (tables.py), is that display (`fs = [f, g]; [h(x) for h in fs]`)."""
        if isinstance(node, gast.Name) and node.id in self.tables and not self.tables[node.id][0]:
            node = gast.List(elts=[astutil.clone(v) for _, v in self.tables[node.id][1]], ctx=gast.Load())
        if not isinstance(node, (gast.Tuple, gast.List)) or not node.elts:
            return None
        known, classes = [], []
        for elt in node.elts:
            made = object_classes.made_class(self.resolved(elt.func)) if isinstance(elt, gast.Call) else None
            # a def of this function bound once (or a lambda made here): the same function wherever it is read
            local = isinstance(elt, gast.Name) and (elt.id in self.local_defs or
                                                    elt.id in self.def_names and elt.id in self.single)
            value = self.static(elt) if not isinstance(elt, (gast.Lambda, gast.Call)) and not local else None
            if made is None and isinstance(elt, gast.Call) or value is rules_mod.NOT_STATIC or \
                    value is not None and (not callable(value) or isinstance(value, type) and
                                           object_classes.made_class(value) is None):
                return None
            known.append(value)
            classes.append(made)        # `for loss in [MSE(), L1()]:` objects of classes adsrc follows
        return ("display", node, known, classes)

    def objects_named(self, node, mixed=False):
        """`layers` bound once to a display of new objects (`[Linear(W), Tanh(), Linear(W)]`) and never
        changed: ("objects", node, their classes), so a loop over it (mixed: only when the classes differ; a
        loop over one class keeps its loop) is unrolled with each object's class known; else None."""
        if isinstance(node, gast.Attribute) and isinstance(node.value, gast.Name):
            return self.objects_held(node, mixed)
        items = self.parameter_items(node.id) if isinstance(node, gast.Name) else None
        if items and all(isinstance(k, int) for k in items) and None not in items.values() and len(items) <= 32:
            classes = [items[k] for k in range(len(items))]      # layers = [Linear(W), Tanh()], as the call passes
            return None if mixed and len(set(classes)) == 1 else ("objects", node, classes)
        if not isinstance(node, gast.Name) or node.id not in self.single or self.shadowed(node.id):
            return None
        value = self.bound_value(node)
        if not isinstance(value, (gast.List, gast.Tuple)) or not value.elts or len(value.elts) > 32 or \
                any(isinstance(e, gast.Starred) for e in value.elts) or \
                not never_changed(self.uf.node, node.id, self.static):
            return None
        classes = [self.made_by(e) for e in value.elts]
        if None in classes or mixed and len(set(classes)) == 1:
            return None
        return ("objects", node, classes)

    def objects_held(self, node, mixed):
        """`self.layers` holding objects of several classes, as the caller made it (`Seq([Linear(W), Tanh()])`):
        ("objects", node, their classes), checked when the code runs; else None."""
        classes = self.field_class(node)[1]
        if not isinstance(classes, tuple) or mixed and len(set(classes)) == 1:
            return None
        self.emit(ir.Effect(astutil.call(astutil.name(self.namer.helper("check_classes")), [
            astutil.clone(node), astutil.tuple_([astutil.name(self.bind(c.__name__, c)) for c in classes]),
            astutil.const(f"{node.value.id}.{node.attr}")])), node)
        return "objects", node, list(classes)

    def unrolled_target(self, target, item, node):
        """Bind a loop target to one item of an unrolled iteration (objects become known)."""
        value, parts = item
        if parts is not None and isinstance(target, (gast.Tuple, gast.List)) and len(target.elts) == len(parts):
            for t, part in zip(target.elts, parts):
                self.unrolled_target(t, part, node)
            return
        if parts is not None:
            value = gast.Tuple(elts=[_item_expr(p) for p in parts], ctx=gast.Load())
        assign = gast.copy_location(gast.Assign(targets=[target], value=value, type_comment=None), node)
        gast.fix_missing_locations(assign)
        self.statement(assign)
        if isinstance(target, gast.Name) and getattr(value, "known", None) is not None:
            self.static_locals[target.id] = value.known
        if isinstance(target, gast.Name) and getattr(value, "made_class", None) is not None:
            self.local_classes[target.id] = value.made_class      # this copy's object: its methods are followed

    def emit_for(self, target, it, fill_body, orelse, node):
        """Emit `for target in it: <fill_body()> else: orelse` as a loop over a range."""
        if isinstance(it, _Range) and isinstance(target, str):
            self.emit(ir.For(target, ir.RangeIter(it.args), self.sub_block(fill_body), orelse=orelse), node)
            return
        index = self.temp("i")

        def body():
            self.bind_item(it, astutil.name(index), target, node)
            fill_body()
        length = self.length(it)
        self.emit(ir.For(index, ir.RangeIter([length]), self.sub_block(body), orelse=orelse), node)

    def length(self, it):
        if isinstance(it, _Range):
            return astutil.call("len", [astutil.call("range", astutil.clone(it.args))])
        if isinstance(it, _Seq):
            return astutil.call("len", [astutil.clone(it.seq)])
        if isinstance(it, _DictView):
            return astutil.call("len", [astutil.clone(it.keys)])
        if isinstance(it, (_Enumerate, _Reversed)):
            return self.length(it.inner)
        lengths = [self.length(i) for i in it.inners]
        return lengths[0] if len(lengths) == 1 else astutil.call("min", lengths)

    def bind_item(self, it, index, target, node):
        """Statements binding target (a name or nested tuple of names) to the item at position `index`."""
        parts = None
        if isinstance(it, _Enumerate):
            counter = astutil.clone(index)
            if it.start is not None:
                counter = gast.BinOp(left=counter, op=gast.Add(), right=astutil.clone(it.start))
            parts = [(counter, None), (None, it.inner)]
        elif isinstance(it, _Zip):
            parts = [(None, inner) for inner in it.inners]
        if parts is not None:
            if isinstance(target, tuple) and len(target) == len(parts):
                for t, (value, inner) in zip(target, parts):
                    if inner is not None:
                        self.bind_item(inner, index, t, node)
                    elif isinstance(t, str):
                        self.emit(ir.Copy(t, value) if isinstance(value, gast.Name) else ir.Const(t, value), node)
                    else:
                        tmp = self.temp("item")
                        self.emit(ir.Const(tmp, value), node)
                        self.emit(ir.Copy(t, astutil.name(tmp)), node)
                return
            names = [self.temp("item") for _ in parts]
            self.bind_item(it, index, tuple(names), node)
            self.store(target, ir.Pack, astutil.tuple_([astutil.name(n) for n in names]), node)
            return
        if isinstance(it, _DictView):
            key = target[0] if it.kind == "items" and isinstance(target, tuple) and len(target) == 2 \
                and isinstance(target[0], str) else self.temp("key")
            self.emit(ir.GetItem(key, gast.Subscript(value=astutil.clone(it.keys), slice=astutil.clone(index),
                                                     ctx=gast.Load())), node)
            value = gast.Subscript(value=astutil.clone(it.mapping), slice=astutil.name(key), ctx=gast.Load())
            if it.kind == "values":
                self.store(target, ir.GetItem, value, node)
            elif key == (target[0] if isinstance(target, tuple) else None):
                self.store(target[1], ir.GetItem, value, node)
            else:
                item = self.temp("value")
                self.emit(ir.GetItem(item, value), node)
                self.store(target, ir.Pack, astutil.tuple_([astutil.name(key), astutil.name(item)]), node)
            return
        if isinstance(target, tuple):
            tmp = self.temp("item")
            self.bind_item(it, index, tmp, node)
            self.emit(ir.Copy(target, astutil.name(tmp)), node)
            return
        if isinstance(it, _Range):
            self.emit(ir.Const(target, gast.Subscript(value=astutil.call("range", astutil.clone(it.args)),
                                                      slice=astutil.clone(index), ctx=gast.Load())), node)
        elif isinstance(it, _Seq):
            self.emit(ir.GetItem(target, gast.Subscript(value=astutil.clone(it.seq), slice=astutil.clone(index),
                                                        ctx=gast.Load())), node)
        else:      # reversed: position len - 1 - index of the inner iteration
            rev = self.temp("rev")
            expr = gast.BinOp(left=gast.BinOp(left=self.length(it.inner), op=gast.Sub(), right=astutil.const(1)),
                              op=gast.Sub(), right=astutil.clone(index))
            self.emit(ir.Const(rev, expr), node)
            self.bind_item(it.inner, astutil.name(rev), target, node)

    def store(self, target, cls, value, node):
        if isinstance(target, tuple):
            tmp = self.temp("item")
            self.emit(cls(tmp, value), node)
            self.emit(ir.Copy(target, astutil.name(tmp)), node)
        else:
            self.emit(cls(target, value), node)

    def zip_iteration(self, its):
        return its[0] if len(its) == 1 else _Zip(its)


def _object(value):
    """An object whose methods a loop body may call (not a number, array, string or container)."""
    import numpy as np
    return not isinstance(value, (int, float, complex, str, bytes, np.ndarray, np.generic, list, tuple, dict,
                                  type(None)))


def _jumps(body):
    """Does a loop body break or continue this loop (not a nested one)?"""
    for st in body:
        for n in astutil.walk(st):
            if isinstance(n, (gast.Break, gast.Continue)):
                return True
    return False


def _has_objects(plan):
    if plan[0] in ("display", "objects"):
        return True
    if plan[0] == "seq":
        return plan[1] is not None and any(_object(v) for v in plan[1])
    if plan[0] == "zip":
        return any(_has_objects(p) for p in plan[1])
    return _has_objects(plan[1])


def _names_attributes(plan, loop):
    """A loop over strings known when transforming (alone, or in an enumerate or zip) whose body passes its
    target to getattr, hasattr or setattr as the attribute's name: unrolled, so each `getattr(obj, name)` reads
    one known attribute."""
    names = set(_string_targets(plan, loop.target))
    if not names:
        return False
    for st in loop.body:
        for n in astutil.walk(st):
            if isinstance(n, gast.Call) and isinstance(n.func, gast.Name) and \
                    n.func.id in ("getattr", "hasattr", "setattr") and len(n.args) >= 2 and \
                    isinstance(n.args[1], gast.Name) and n.args[1].id in names:
                return True
    return False


def _string_targets(plan, target):
    """The names a loop target binds to strings known when transforming."""
    if plan[0] == "seq":
        if isinstance(target, gast.Name) and plan[1] and all(isinstance(v, str) for v in plan[1]):
            yield target.id
        return
    if plan[0] == "reversed":
        yield from _string_targets(plan[1], target)
        return
    if not isinstance(target, (gast.Tuple, gast.List)):
        return
    parts = [None, plan[1]] if plan[0] == "enumerate" else plan[1] if plan[0] == "zip" else None
    if parts is not None and len(parts) == len(target.elts):
        for part, t in zip(parts, target.elts):
            if part is not None:
                yield from _string_targets(part, t)


def _plan_length(plan):
    if plan[0] == "display":
        return len(plan[1].elts)
    if plan[0] == "objects":
        return len(plan[2])
    if plan[0] == "seq":
        return None if plan[1] is None else len(plan[1])
    if plan[0] == "zip":
        lengths = [_plan_length(p) for p in plan[1]]
        known = [n for n in lengths if n is not None]
        return min(known) if known else None
    return _plan_length(plan[1])


def _plan_item(plan, k):
    """(expression, parts): parts are the items of a zip/enumerate, else None; a known object is
    attached to its expression as `.known`."""
    kind = plan[0]
    if kind == "display":
        expr = astutil.clone(plan[1].elts[k])
        if plan[2][k] is not None:
            expr.known = plan[2][k]        # (a function known when transforming: its calls are followed)
        if plan[3][k] is not None:
            expr.made_class = plan[3][k]   # (a new object: its methods are followed)
        return expr, None
    if kind == "objects":
        expr = gast.Subscript(value=astutil.clone(plan[1]), slice=astutil.const(k), ctx=gast.Load())
        expr.made_class = plan[2][k]
        return expr, None
    if kind == "seq":
        if plan[1] is not None and isinstance(plan[1][k], str):
            expr = astutil.const(plan[1][k])
            expr.known = plan[1][k]        # (an attribute's name: getattr(obj, name) reads obj.<name>)
            return expr, None
        expr = gast.Subscript(value=astutil.clone(plan[2]), slice=astutil.const(k), ctx=gast.Load())
        if plan[1] is not None and _object(plan[1][k]):
            expr.known = plan[1][k]
        return expr, None
    if kind == "enumerate":
        return None, [(astutil.const(k + plan[2]), None), _plan_item(plan[1], k)]
    if kind == "zip":
        return None, [_plan_item(p, k) for p in plan[1]]
    return _plan_item(plan[1], _plan_length(plan[1]) - 1 - k)


def _item_expr(item):
    value, parts = item
    return value if parts is None else gast.Tuple(elts=[_item_expr(p) for p in parts], ctx=gast.Load())
