"""Objects taken by index from a list holding objects of several classes.

    ps = [Particle(X[0]), Heavy(X[1])]          # or built by `ps.append(...)`
    for i in range(len(ps)):
        p = ps[i]
        p.step(f)

`p`, bound only there, holds an object of one of the classes the list is filled with (object_classes.py,
list_element_classes), which one known only when the code runs. Each call of a method of `p` becomes a branch
per class, on `type(p)`, in which p's class is known and the method is followed:

    if type(p) is Heavy: p.step(f)          (Heavy.step followed)
    elif type(p) is Particle: p.step(f)     (Particle.step followed)
    else: check_class_among(p, (Heavy, Particle), "p")      # refused when it runs

Another object in the list (put there by code adsrc did not read) is refused when the code runs.
"""

import inspect

import gast

from .. import astutil
from ..ir import nodes as ir
from . import object_classes
from .object_classes import is_user_function


class ClassChoices:
    """Mixin of the Normalizer (calls.py)."""

    def list_classes(self, v):
        """The classes (two or more) of the objects the local list v is filled with, else None."""
        if not isinstance(v, gast.Name) or any(v.id in s for s in self.scopes[1:]):
            return None
        if getattr(self, "_list_choices", None) is None:
            self._list_choices = object_classes.list_element_classes(
                list(astutil.walk(self.uf.node)), lambda t: t.id if isinstance(t, gast.Name) else None,
                self.resolved, several=True)
        return self._list_choices.get(v.id)

    def note_class_choices(self, name, value):
        """`p = ps[i]`, p's only binding, ps a list of objects of several classes: remember them."""
        if (name in self.single or self.store_counts.get(name) == 1) and len(self.scopes) == 1 and \
                isinstance(value, gast.Subscript) and not isinstance(value.slice, gast.Slice) and \
                self.local_classes.get(name) is None:
            classes = self.list_classes(value.value)
            if classes is not None:
                self.class_choices[name] = classes

    def dispatched_method(self, e, target):
        """`p.step(f)` with p holding an object of one of several classes: a branch per class (see the module's
        docstring). False if e is not such a call."""
        f = e.func
        v = f.value
        if isinstance(v, gast.Name) and v.id in self.class_choices and self.known_class(v) is None:
            classes, label = self.class_choices[v.id], self.namer.user(v.id)
        elif isinstance(v, gast.Subscript) and not isinstance(v.slice, gast.Slice) and \
                self.inferred_class(v) is None and self.list_classes(v.value) is not None:
            classes, label = self.list_classes(v.value), astutil.unparse(v)      # ps[2].energy()
        else:
            return False
        if not all(is_user_function(inspect.getattr_static(c, f.attr, None)) for c in classes):
            return False
        name = v.id if isinstance(v, gast.Name) else self.atom(v).id
        e = gast.copy_location(gast.Call(func=gast.Attribute(value=astutil.name(name), attr=f.attr, ctx=gast.Load()),
                                         args=e.args, keywords=e.keywords), e)
        check = astutil.call(astutil.name(self.namer.helper("check_class_among")), [
            astutil.name(name), astutil.tuple_([astutil.name(self.bind(c.__name__, c)) for c in classes]),
            astutil.const(label)])

        def branches(k):
            if k == len(classes):
                self.emit(ir.Effect(check), e)
                if target is not None:
                    self.emit(ir.Const(target, astutil.const(None)), e)
                return
            cls = classes[k]
            test = gast.Compare(left=astutil.call(self.builtin_name("type"), [astutil.name(name)]),
                                ops=[gast.Is()], comparators=[astutil.name(self.bind(cls.__name__, cls))])
            self.emit(ir.If(self.raw(test), self.sub_block(lambda: self.call_as(e, name, cls, target)),
                            self.sub_block(lambda: branches(k + 1))), e)
        branches(0)
        return True

    def call_as(self, e, name, cls, target):
        """Emit the call e with `name` known to hold a cls."""
        saved = self.local_classes.get(name)
        self.local_classes[name] = cls
        try:
            self.call(astutil.clone(e), target)
        finally:
            if saved is None:
                self.local_classes.pop(name, None)
            else:
                self.local_classes[name] = saved
