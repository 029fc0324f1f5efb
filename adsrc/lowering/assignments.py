"""Assignments, for the Normalizer: `target = value` to any target (names, items, attributes, unpacking, a global
dict's item or a class's attribute written back), and `target op= value` in Python's order (the item or field
read, changed in place where the object allows, written back)."""

import operator

import gast

from .. import astutil
from ..ir import nodes as ir
from .expressions import subscript_temp
from .object_classes import user_class


INPLACE_METHODS = {gast.Add: "__iadd__", gast.Sub: "__isub__", gast.Mult: "__imul__", gast.Div: "__itruediv__",
                   gast.MatMult: "__imatmul__", gast.Pow: "__ipow__", gast.FloorDiv: "__ifloordiv__",
                   gast.Mod: "__imod__"}


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


class Assignments:
    """Mixin of the Normalizer: assignment statements and their targets."""

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
            value = self.chosen_function(t.id, value)   # act = np.tanh if c else relu (function_values.py)
            value = self.chosen_later(t.id, value)      # act = acts[kind]: its calls go through the table
            if isinstance(value, gast.Lambda):
                self.lambda_def(value, t.id)       # f = lambda x: ...  is  def f(x): return ...
                self.note_function_choice(t.id, value, value)
                return
            if self.library_object(t.id, value):   # dist = stats.norm(mu, s): its methods' calls get mu, s
                return
            if self.record_class(t.id, value):      # P = namedtuple("P", ["W", "b"]): made when transforming
                return
            self.hold_factory_arguments(t.id, value)
            self.value(value, t.id)
            self.note_function_choice(t.id, value, value)    # act = relu, one of its bindings (function_choices.py)
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
                cls = self.element_class(value) if isinstance(value, gast.Name) and len(self.scopes) == 1 else None
                items = self.parameter_items(value.id) if isinstance(value, gast.Name) and cls is None and \
                    len(self.scopes) == 1 else None
                self.emit(ir.Copy(spec, self.atom(value)), value)
                for i, name in enumerate(spec):        # enc, dec = layers: objects of known classes
                    known = cls or (items or {}).get(i) if len(spec) == len(items or spec) else cls
                    if known is not None and isinstance(name, str) and name in self.single:
                        self.check_class(name, known, t)
                        self.local_classes[name] = known
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
            if what == "attribute":
                raise self.error(t, f"`{astutil.unparse(t).strip()} = ...` changes an object known when "
                                    "transforming (a global, or the object of a method called on one); adsrc "
                                    "does not change objects it does not own, as it never changes its inputs.",
                                 "Return the new value from the differentiated function (`has_aux=True`: "
                                 "running statistics, counters) and assign it after the call.")
            raise self.error(t, f"{what} assignment is only supported on local variables "
                                "(a name assigned in this function or one of its parameters).",
                             "Copy the array into a local variable first: `a = np.array(obj)`.")
        return base.id
