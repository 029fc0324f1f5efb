"""What the fields of objects made in the function hold, when known then: functions (`Dense(W, act=np.tanh)`)
and objects of known classes (`Wrap(Linear(W))`, `Stack([Linear(W), Tanh()])`).

The caller passes what it knows to the methods it calls (ir.CallUser.fields, .field_classes), so that in
`Wrap.__call__`, `self.inner(x)` is a call of Linear's `__call__` adsrc follows (checked when the code runs:
runtime.check_class, check_classes).
"""

import copy
import dataclasses
import inspect

import gast

from .. import astutil
from ..frontend.source import stores_field
from . import object_classes


class MadeFields:
    """Mixin of the Normalizer's Objects."""

    def note_fields(self, obj, cls, e):
        """Remember the fields cls.__init__ sets to functions this call passes (known when transforming) or
        leaves to defaults (`Dense(W, act=np.tanh)`, `self.act = act`), and to objects of known classes
        (`Wrap(Linear(W))`), which this function never assigns."""
        known, classes = self.construction_fields(cls, e)
        known = {f: v for f, v in known.items() if not stores_field(self.uf.node, obj, f)}
        classes = {f: v for f, v in classes.items() if not stores_field(self.uf.node, obj, f)}
        if known:
            self.known_fields[obj] = known
        if classes:
            self.known_field_classes[obj] = classes

    def construction_fields(self, cls, e):
        """({field: function}, {field: (class, element class, field classes)}) of what `cls(...)` (the call e)
        puts in the object's fields, as far as known when transforming."""
        from ..object_args import is_function
        init = inspect.getattr_static(cls, "__init__")
        try:
            params = list(inspect.signature(init).parameters.values())[1:]
        except (TypeError, ValueError):
            return {}, {}
        if any(isinstance(a, gast.Starred) for a in e.args) or any(k.arg is None for k in e.keywords) or \
                any(p.kind == p.VAR_KEYWORD for p in params):
            return {}, {}
        named = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        passed = dict(zip([p.name for p in named], e.args))
        passed.update({k.arg: k.value for k in e.keywords})
        star = next((p.name for p in params if p.kind == p.VAR_POSITIONAL), None)
        if star is not None:         # `Seq(Linear(W), Tanh())` into `def __init__(self, *layers)`: the rest
            passed[star] = gast.Tuple(elts=list(e.args[len(named):]), ctx=gast.Load())
        known, classes = {}, {}
        fields = object_classes.fields_from_parameters(init) if not dataclasses.is_dataclass(cls) else \
            {f.name: f.name for f in dataclasses.fields(cls) if f.init}
        for field, param in fields.items():
            node = passed.get(param)
            default = next((p.default for p in params if p.name == param), inspect.Parameter.empty)
            value = self.static(node) if node is not None else default
            if is_function(value):
                known[field] = value
            elif node is not None and self.object_class(node) is not None:
                classes[field] = self.object_class(node)
        return known, classes

    def lifted_lambdas(self, e):
        """The construction e with each lambda passed to it that reads none of this function's variables replaced
        by a name bound to its module-level copy (lifting.py), so that the field it fills holds a function known
        when transforming (`Problem(lambda v: np.sum(v ** 2), 0.5)`, then `self.f(x)` in a method)."""
        from ..frontend.source import lambda_to_def
        from . import lifting

        def known(node):
            if not isinstance(node, gast.Lambda):
                return node
            lifted = lifting.lift(lambda_to_def(copy.deepcopy(node), "passed_lambda"), self.uf, self.is_local)
            if lifted is None or lifted[1]:
                return node
            return gast.copy_location(astutil.name(self.bind(lifted[0].__name__, lifted[0])), node)
        if not any(isinstance(a, gast.Lambda) for a in list(e.args) + [k.value for k in e.keywords]):
            return e
        return gast.copy_location(gast.Call(func=e.func, args=[known(a) for a in e.args],
                                            keywords=[gast.keyword(arg=k.arg, value=known(k.value))
                                                      for k in e.keywords]), e)

    def object_class(self, node):
        """(class, element class, its field classes) of the object an argument of a construction is, when known:
        a name bound to an object made here, or a construction (`Wrap(Linear(W))`); a list of objects of one
        class made here (`Seq([Linear(W1), Linear(W2)])`); else None."""
        if isinstance(node, gast.Name) and self.known_class(node) is not None:
            return self.known_class(node), None, _entries(self.known_field_classes.get(node.id, {}))
        if isinstance(node, gast.Call) and object_classes.made_class(self.resolved(node.func)) is not None:
            cls = object_classes.made_class(self.resolved(node.func))
            return cls, None, _entries(self.construction_fields(cls, node)[1])
        displays = (gast.List, gast.Tuple, gast.ListComp)
        elem = object_classes.element_class(node, self.resolved) if isinstance(node, displays) else \
            self.element_class(node) if isinstance(node, gast.Name) else None
        if elem is None:            # objects of several classes: the class of each, in order
            elts = node.elts if isinstance(node, (gast.List, gast.Tuple)) else None
            named = self.objects_named(node) if isinstance(node, gast.Name) else None
            classes = [self.made_by(e) for e in elts] if elts and len(elts) <= 32 else named and named[2]
            elem = tuple(classes) if classes and None not in classes else None
        return (None, elem, ()) if elem is not None else None

    def element_field_classes(self, iterable):
        """{field: (class, element class, field classes)} the fields of every object of a list hold, the list a
        name bound once to a display or comprehension of constructions that all fill their fields alike; else
        None."""
        value = self.bound_value(iterable)
        elts = value.elts if isinstance(value, (gast.List, gast.Tuple)) else [value.elt] \
            if isinstance(value, gast.ListComp) else []
        found = []
        for e in elts:
            cls = self.made_by(e)
            found.append(self.construction_fields(cls, e)[1] if cls is not None else None)
        return found[0] if found and found[0] and all(f == found[0] for f in found) else None

    def argument_fields(self, call, receiver):
        """((position, ((field, function), ...)), ...) of a call's arguments made here with functions in
        their fields (ir.CallUser.fields)."""
        args = ([receiver] if receiver is not None else []) + list(call.args)
        out = [(i, a.id) for i, a in enumerate(args) if isinstance(a, gast.Name)]
        out += [(k.arg, k.value.id) for k in call.keywords if k.arg and isinstance(k.value, gast.Name)]
        # (objects made here, and this function's parameters as its caller made them: `self.step(y)` in `run`)
        known = {n: self.known_fields.get(n) or self.uf.fields.get(n) for _, n in out}
        return tuple((i, tuple(sorted(known[n].items()))) for i, n in out if known[n])

    def argument_field_classes(self, call, receiver):
        """((position, ((field, class, its field classes), ...)), ...) of a call's arguments made here holding
        objects of known classes in their fields (ir.CallUser.field_classes)."""
        args = ([receiver] if receiver is not None else []) + list(call.args)
        out = [(i, a.id) for i, a in enumerate(args) if isinstance(a, gast.Name)]
        out += [(k.arg, k.value.id) for k in call.keywords if k.arg and isinstance(k.value, gast.Name)]
        # (objects made here, and this function's parameters as its caller made them: `self.encode(x)`)
        known = {n: self.known_field_classes.get(n) or self.uf.field_classes.get(n) for _, n in out}
        return tuple((i, _entries(known[n])) for i, n in out if known[n])

    def field_class(self, v):
        """(class, element class, its field classes) of the object in field v.attr of an object made here or by
        the caller (`Wrap(Linear(W))`), or (None, None, ())."""
        known = self.known_field_classes.get(v.value.id) if self.known_class(v.value) is not None else None
        return (known or self.uf.field_classes.get(v.value.id, {})).get(v.attr, (None, None, ()))


def _entries(known):
    """{field: (class, element class, field classes)} as ((field, class, element class, field classes), ...)."""
    return tuple(sorted(((f,) + v for f, v in known.items()), key=lambda entry: entry[0]))
