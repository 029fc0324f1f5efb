"""Mixin of the Normalizer's Calls (objects.py): which class of the user's an expression's value has, where
adsrc can tell when transforming (an object made here, an argument of a known class, an item of a list of
them, the result of a method or an operator of such a class), and which names keep one class throughout."""

import inspect

import gast

from .. import astutil
from .. import rules as rules_mod
from ..ir import nodes as ir
from . import object_classes
from .object_classes import is_user_function

# operators whose result's class a user class's method decides: `a + b` calls a.__add__ (or b.__radd__)
_OPERATOR_METHODS = {gast.Add: "add", gast.Sub: "sub", gast.Mult: "mul", gast.Div: "truediv",
                     gast.FloorDiv: "floordiv", gast.Mod: "mod", gast.Pow: "pow", gast.MatMult: "matmul"}
_UNARY_METHODS = {gast.USub: "__neg__", gast.UAdd: "__pos__"}


class ClassInference:
    """Mixin of the Normalizer's Calls."""

    def known_class(self, v):
        """The class of the object v holds when it is known: a parameter of a registered pytree or a known
        class (uf.classes), or an object made in this function."""
        if not isinstance(v, gast.Name) or any(v.id in s for s in self.scopes[1:]):
            return None
        return self.local_classes.get(v.id) or self.uf.classes.get(v.id)

    def attribute_class(self, v, element=False):
        """The class `obj.attr` (element: its elements) has as obj's class's __init__ makes it, or None."""
        if not isinstance(v, gast.Attribute):
            return None
        owner = self.known_class(v.value)
        found = object_classes.attribute_classes(owner, v.attr)[element] if owner is not None else None
        if found is None and isinstance(v.value, gast.Name):
            found = self.field_class(v)[1 if element else 0]
        return found if not isinstance(found, tuple) else None      # (objects of several classes: unrolled)

    def element_class(self, v):
        """The class of the elements of the list v (a name bound to a display of constructions, an attribute
        its owner's __init__ makes so, or a slice of those), or None."""
        if isinstance(v, gast.Name) and not any(v.id in s for s in self.scopes[1:]):
            if self.element_classes is None:
                self.element_classes = object_classes.list_element_classes(
                    list(astutil.walk(self.uf.node)), lambda t: t.id if isinstance(t, gast.Name) else None,
                    self.resolved)
            return self.element_classes.get(v.id) or self.parameter_element_class(v.id)
        if isinstance(v, gast.Subscript) and isinstance(v.slice, gast.Slice):
            return self.element_class(v.value)
        return self.attribute_class(v, element=True)

    def inferred_class(self, v):
        """The class of the object `obj.attr` or `objs[i]` holds, as inferred (checked when the code runs)."""
        if isinstance(v, gast.Subscript) and not isinstance(v.slice, gast.Slice):
            return self.element_class(v.value) or self.value_class(v.value) or \
                self.parameter_item_class(v)                                     # (`blocks["enc"]`)
        if isinstance(v, gast.Call) and isinstance(v.func, gast.Attribute) and self.resolved(v.func) is None or \
                isinstance(v, gast.Call) and self.resolved(v.func) in (abs, sum) and len(v.args) in (1, 2):
            return self.expression_class(v)              # w = v.scaled(2.0); w = abs(v); w = sum([u, v])
        if isinstance(v, gast.Call):
            fn = self.resolved(v.func)
            return object_classes.returned_class(fn) if is_user_function(fn) else object_classes.factory_class(fn)
        if isinstance(v, (gast.BinOp, gast.UnaryOp, gast.IfExp)):
            return self.expression_class(v)              # w = 2.0 * v + v; w = -v; m = a if c else b
        return self.attribute_class(v)

    def operator_method(self, e):
        """For `a + b` (any arithmetic operator) with an operand of a known user class whose `__add__` /
        `__radd__` is Python code: (that operand, the method's name, the other operand, the method); else
        None (the numbers' rule applies)."""
        if isinstance(e, gast.UnaryOp):             # -a: a.__neg__()
            name = _UNARY_METHODS.get(type(e.op))
            cls = self.expression_class(e.operand) if name is not None else None
            method = inspect.getattr_static(cls, name, None) if cls is not None else None
            return (e.operand, name, None, method) if is_user_function(method) else None
        op = _OPERATOR_METHODS.get(type(e.op))
        if op is None:
            return None
        left = self.expression_class(e.left)
        method = inspect.getattr_static(left, f"__{op}__", None) if left is not None else None
        if is_user_function(method):
            return e.left, f"__{op}__", e.right, method
        if left is None and not (isinstance(e.left, gast.Constant) and type(e.left.value) in (int, float)):
            return None      # `a * v` with `a` maybe an array: Python may not call v.__rmul__ (check_operand)
        method = inspect.getattr_static(self.expression_class(e.right), f"__r{op}__", None)
        return (e.right, f"__r{op}__", e.left, method) if is_user_function(method) else None

    def user_operator(self, e, target, found):
        """`a + b` as the call `a.__add__(b)`, followed like any method; the result's class, when every
        return of the method makes one, is known from then on (checked when the code runs)."""
        operand, name, other, method = found
        call = gast.copy_location(gast.Call(func=gast.Attribute(value=operand, attr=name, ctx=gast.Load()),
                                            args=[] if other is None else [other], keywords=[]), e)
        self.call(call, target)
        cls = object_classes.returned_class(method, self.expression_class(operand))
        if cls is not None and isinstance(target, str) and target in self.scopes[-1] and target not in self.single:
            self.check_class(target, cls, e)
            self.local_classes[target] = cls

    def expression_class(self, e):
        """The class of the object a method call or operator on objects of known classes returns, when each
        `return` of the method (`__add__`, `__rmul__`...) makes one of the same class; else None."""
        if isinstance(e, gast.Name):
            return self.known_class(e)
        if isinstance(e, gast.Subscript) and isinstance(e.slice, gast.Constant) and type(e.slice.value) is int:
            plan = self.objects_named(e.value)          # vs[0] of vs = [V(a), V(b)], never changed
            if plan is not None and -len(plan[2]) <= e.slice.value < len(plan[2]):
                return plan[2][e.slice.value]
        if isinstance(e, gast.Subscript) and not isinstance(e.slice, gast.Slice):
            owner = self.expression_class(e.value)       # net[i] with Net.__getitem__ returning self.layers[i]
            method = inspect.getattr_static(owner, "__getitem__", None) if owner is not None else None
            if is_user_function(method):
                return object_classes.returned_class(method, owner)
        if isinstance(e, gast.IfExp):               # a if c else b, both of one class
            body = self.expression_class(e.body)
            return body if body is not None and self.expression_class(e.orelse) is body else None
        if isinstance(e, gast.Call) and self.resolved(e.func) is sum and len(e.args) in (1, 2) and \
                isinstance(e.args[0], (gast.List, gast.Tuple)) and e.args[0].elts:
            return self.expression_class(summed(e.args))     # sum([u, v]): 0 + u + v
        if isinstance(e, gast.Call) and self.resolved(e.func) is sum and len(e.args) in (1, 2) and \
                self.items_named(e.args[0]) is not None:
            return self.expression_class(summed([self.items_named(e.args[0])] + e.args[1:]))    # sum(vs)
        if isinstance(e, gast.Call) and self.resolved(e.func) is abs and len(e.args) == 1:
            cls = self.expression_class(e.args[0])      # abs(v): v.__abs__()
            method = inspect.getattr_static(cls, "__abs__", None) if cls is not None else None
            return object_classes.returned_class(method, cls) if is_user_function(method) else None
        if isinstance(e, gast.Call) and (not isinstance(e.func, gast.Attribute) or self.resolved(e.func) is not None):
            made = self.made_by(e)                       # C(...), or a function of the user's making one
            fn = self.resolved(e.func)
            return made or (object_classes.returned_class(fn) if is_user_function(fn) else None)
        if isinstance(e, gast.Call):
            candidates = [(e.func.value, e.func.attr)]
        elif isinstance(e, (gast.BinOp, gast.UnaryOp)):
            found = self.operator_method(e)              # the method `a + b` calls, as op_BinOp decides
            return object_classes.returned_class(found[3], self.expression_class(found[0])) \
                if found is not None else None
        else:
            return None
        for operand, name in candidates:
            cls = self.expression_class(operand)
            method = inspect.getattr_static(cls, name, None) if cls is not None else None
            if is_user_function(method):
                # (a method that returns its object, `return self`, for chained calls: b.scale(2).value())
                return object_classes.returned_class(method, cls) or \
                    (cls if object_classes.returns_self_or(method, cls) else None)
        return None

    def note_class(self, name, value):
        """What `name = value` (name bound once) tells of classes: a list of objects of one class, or an
        attribute its owner's __init__ makes an object of a known class (checked when the code runs). In a loop
        too, when it is the name's only binding (`body = bodies[i]`): each run of it checks the class."""
        if name not in self.single and self.store_counts.get(name) != 1 or len(self.scopes) != 1:
            return
        if isinstance(value, (gast.Attribute, gast.Subscript, gast.Call, gast.BinOp, gast.UnaryOp, gast.IfExp)):
            # o = self.encoder; layer = layers[0]; box = make_box()
            cls = self.inferred_class(value)
            if cls is not None:
                self.check_class(name, cls, value)
                self.local_classes[name] = cls
            mapped = self.tree_mapped(value)
            if cls is None and mapped is not None:          # half = tree_map(lambda p: p / 2, model)
                self.check_class(name, self.known_class(mapped), value)
                self.local_classes[name] = self.known_class(mapped)
                fields = self.known_field_classes.get(mapped.id) or self.uf.field_classes.get(mapped.id)
                if fields:
                    self.known_field_classes[name] = fields

    def items_named(self, node):
        """`vs`, a name bound once to a display of new objects of one class and never changed, as the display
        of its items `[vs[0], vs[1], ...]` (so that `sum(vs)` is `0 + vs[0] + vs[1]`), else None."""
        plan = self.objects_named(node)
        if plan is None or len(set(plan[2])) != 1:
            return None
        return items_display(node.id, len(plan[2]))

    def loop_element_class(self, target, iterable):
        """`for layer in layers:` (or `enumerate(layers)`, `reversed(layers)`) over a list of objects of one class,
        with `layer` bound by this loop only: (layer, its class) (checked each step), else None."""
        if isinstance(target, gast.Tuple) and len(target.elts) == 2 and isinstance(iterable, gast.Call) and \
                self.resolved(iterable.func) is enumerate and len(iterable.args) == 1 and not iterable.keywords:
            target, iterable = target.elts[1], iterable.args[0]
        if isinstance(iterable, gast.Call) and self.resolved(iterable.func) is reversed and \
                len(iterable.args) == 1 and not iterable.keywords:
            iterable = iterable.args[0]         # `for layer in reversed(self.layers):`
        view = iterable.func.attr if isinstance(iterable, gast.Call) and isinstance(iterable.func, gast.Attribute) \
            and iterable.func.attr in ("items", "values") and not iterable.args and not iterable.keywords else None
        if view == "items" and isinstance(target, gast.Tuple) and len(target.elts) == 2:
            target = target.elts[1]             # `for name, block in blocks.items():`
        if not isinstance(target, gast.Name) or self.store_counts.get(target.id) != 1:
            return None
        cls = self.value_class(iterable.func.value) if view else \
            self.element_class(iterable) or self.iterated_class(iterable)
        return (target.id, cls) if cls is not None else None

    def value_class(self, node):
        """The class of every value of a dict display of constructions (`{"enc": Linear(W1), "dec": Linear(W2)}`)
        a name is bound to once, else None."""
        value = self.bound_value(node)
        if value is None and isinstance(node, gast.Name) and not any(node.id in s for s in self.scopes[1:]):
            return self.parameter_element_class(node.id)      # a dict of layer objects the call passes
        classes = {self.made_by(v) for v in value.values} if isinstance(value, gast.Dict) and value.values and \
            None not in value.keys else {None}
        return classes.pop() if len(classes) == 1 else None

    def bound_value(self, node):
        """The value of the one `name = value` that binds a name bound once, else None."""
        if not isinstance(node, gast.Name) or node.id not in self.single:
            return None
        return next(iter(_assigned_values(self.uf.node, node.id)), None)

    def iterated_class(self, iterable):
        """The class of the objects `for layer in model:` gives, with model's `__iter__` returning
        `iter(self.layers)` and its __init__ making them, else None."""
        from .normalize import _iterated_field
        owner = self.expression_class(iterable)
        method = inspect.getattr_static(owner, "__iter__", None) if owner is not None else None
        held = _iterated_field(method) if is_user_function(method) else None
        return object_classes.attribute_classes(owner, held)[1] if held is not None else None

    def made_by(self, value):
        """The class whose new object the expression `C(...)` or `object.__new__(C)` makes, else None."""
        if not isinstance(value, gast.Call):
            return None
        f = self.resolved(value.func)
        if f is object.__new__ and len(value.args) == 1:
            f = self.resolved(value.args[0])
        return object_classes.made_class(f)

    def resolved(self, node):
        obj = self.static(node)
        return None if obj is rules_mod.NOT_STATIC else obj

    def check_class(self, name, cls, node):
        """name holds a cls (inferred): a check when the code runs, then its methods are followed."""
        self.emit(ir.Effect(astutil.call(astutil.name(self.namer.helper("check_class")),
                                         [astutil.name(name), astutil.name(self.bind(cls.__name__, cls)),
                                          astutil.const(name)])), node)

    @property
    def stable_classes(self):
        """Names every binding of which (there may be several: in a loop, in branches) makes an object of one
        class (`layer = Linear(W)`): name -> the class."""
        found = getattr(self, "_stable_classes", None)
        if found is None:
            made, augmented, replaced = {}, {}, []
            for n in astutil.walk(self.uf.node):
                if isinstance(n, gast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], gast.Name):
                    source = _replaced_record(n.value, self.resolved)
                    if source is not None:      # s = s._replace(h=v): a record of s's class
                        replaced.append((n.targets[0].id, source))
                    else:
                        made.setdefault(n.targets[0].id, []).append(self.made_by(n.value))
                elif isinstance(n, gast.AugAssign) and isinstance(n.target, gast.Name):
                    augmented.setdefault(n.target.id, []).append(n.op)
            for name, source in replaced:
                classes = set(made.get(source, [None]))
                made.setdefault(name, []).append(classes.pop() if len(classes) == 1 else None)
            for name, classes in made.items():
                if None in classes and len(set(classes) - {None}) == 1:
                    # p = Vec2(1.0, a); p = p + p * 0.5: operators of p's class that make one of it again
                    cls = next(c for c in classes if c is not None)
                    classes[:] = [cls if self.assumed_class(v, name, cls) is cls else None
                                  for v in _assigned_values(self.uf.node, name)]
            found = self._stable_classes = {
                name: classes[0] for name, classes in made.items()
                if classes[0] is not None and len(set(classes)) == 1 and
                len(classes) + _keeping(classes[0], augmented.get(name, ())) == self.store_counts.get(name)}
        return found

    def assumed_class(self, value, name, cls):
        """The class of the object value makes if name holds a cls (operators and methods of cls), else None."""
        before = self.local_classes.get(name)
        self.local_classes[name] = cls
        try:
            return self.made_by(value) or self.expression_class(value)
        finally:
            if before is None:
                del self.local_classes[name]
            else:
                self.local_classes[name] = before

    @property
    def store_counts(self):
        counts = getattr(self, "_store_counts", None)
        if counts is None:
            counts = self._store_counts = {}
            own = {id(t) for n in astutil.walk(self.uf.node) if isinstance(n, gast.comprehension)
                   for t in astutil.walk(n.target)}      # a comprehension's targets are its own (renamed when lowered)
            for n in astutil.walk(self.uf.node):
                if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Del)) and id(n) not in own:
                    counts[n.id] = counts.get(n.id, 0) + 1
        return counts


def items_display(name, n):
    """`[name[0], ..., name[n - 1]]`."""
    return gast.List(elts=[gast.Subscript(value=astutil.name(name), slice=astutil.const(i), ctx=gast.Load())
                           for i in range(n)], ctx=gast.Load())


def summed(args):
    """The arguments of `sum([u, v], start)` as the expression `start + u + v` (start 0 if not given)."""
    total = args[1] if len(args) == 2 else astutil.const(0)
    for v in args[0].elts:
        total = gast.BinOp(left=total, op=gast.Add(), right=v)
    return total


def _assigned_values(fdef, name):
    return [n.value for n in astutil.walk(fdef) if isinstance(n, gast.Assign) and len(n.targets) == 1 and
            isinstance(n.targets[0], gast.Name) and n.targets[0].id == name]


def _replaced_record(value, resolve):
    """The name `s` of `s._replace(...)` or `dataclasses.replace(s, ...)`, else None."""
    import dataclasses
    if not isinstance(value, gast.Call):
        return None
    f = value.func
    if isinstance(f, gast.Attribute) and f.attr == "_replace" and isinstance(f.value, gast.Name):
        return f.value.id
    if value.args and isinstance(value.args[0], gast.Name) and resolve(f) is dataclasses.replace:
        return value.args[0].id
    return None


def _keeping(cls, ops):
    """How many of the augmented assignments `a op= v` (ops) keep an object of cls one: its class's in-place
    method (`__iadd__`...) returns the object itself or a new one of cls."""
    from .assignments import INPLACE_METHODS
    kept = 0
    for op in ops:
        method = inspect.getattr_static(cls, INPLACE_METHODS.get(type(op), ""), None)
        if is_user_function(method) and object_classes.returns_self_or(method, cls):
            kept += 1
    return kept
