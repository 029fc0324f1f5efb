"""`s._replace(h=v)` on a namedtuple and `dataclasses.replace(o, w=v)` on a dataclass, whose class is known
when transforming: the construction of a new record, its other fields read from the old one,

    s._replace(h=v)                  ->   State(h=v, c=s.c)
    dataclasses.replace(o, w=v)      ->   Opt(w=v, lr=o.lr)

which adsrc follows as any construction (a dataclass's __post_init__ runs again, as it does in Python).

When the class is not known then (a namedtuple or dataclass argument rebound in a loop, an item of a list
rebuilt by appends), each named field is replaced in turn (`runtime.replace_field`, which has a derivative
rule), after a check when the code runs that the object is a namedtuple (for `._replace`) or a dataclass whose
`replace` that is: one with its generated `__init__`, no `__post_init__` and no `init=False` fields (others
are refused there, naming the class).
"""

import dataclasses

import gast

from .. import astutil
from ..ir import nodes as ir
from .object_classes import _record_type


class RecordReplace:
    """Mixin of the Normalizer's Calls."""

    def record_replace(self, e, target):
        """Emit such a call as its construction: True, or False if e is not one (it is then called as usual)."""
        f = e.func
        if isinstance(f, gast.Attribute) and f.attr == "_replace" and not e.args:
            obj = f.value
        elif isinstance(f, (gast.Name, gast.Attribute)) and len(e.args) == 1 and \
                self.static(f) is dataclasses.replace:
            obj = e.args[0]
        else:
            return False
        cls = self.known_class(obj) if isinstance(obj, gast.Name) else None
        if any(k.arg is None for k in e.keywords):
            return False
        if cls is None and e.keywords:
            return self.replace_each_field(e, obj, "namedtuple" if f.attr == "_replace" else "dataclass", target)
        if cls is None or not _record_type(cls):
            return False
        fields = list(cls._fields) if isinstance(cls, type) and issubclass(cls, tuple) else \
            [x.name for x in dataclasses.fields(cls) if x.init]
        given = {k.arg: k.value for k in e.keywords}
        if not set(given) <= set(fields):
            return False                    # (Python's error, from the call as written)
        keywords = [gast.keyword(arg=n, value=given[n] if n in given else
                                 gast.Attribute(value=astutil.clone(obj), attr=n, ctx=gast.Load())) for n in fields]
        call = gast.copy_location(gast.Call(func=astutil.name(self.bind(cls.__name__, cls)), args=[],
                                            keywords=keywords), e)
        self.call(call, target)
        return True

    def replace_each_field(self, e, obj, kind, target):
        """`obj._replace(a=u, b=v)` (kind "namedtuple") or `dataclasses.replace(obj, a=u, b=v)` ("dataclass") of an
        object of a class not known when transforming: replace_field(replace_field(obj, "a", u), "b", v), once a
        check when the code runs has found obj to be such a record."""
        from ..rules import sharing
        value = self.atom(obj)
        names = astutil.const(tuple(k.arg for k in e.keywords))
        self.emit(ir.Effect(astutil.call(astutil.name(self.bind("check_record", sharing.check_record)),
                                         [astutil.clone(value), astutil.const(kind), names])), e)
        replace = self.bind("replace_field", sharing.replace_field)
        current = value
        for i, k in enumerate(e.keywords):
            out = target if i == len(e.keywords) - 1 and target is not None else self.temp("replaced")
            call = gast.Call(func=astutil.name(replace), args=[astutil.clone(current), astutil.const(k.arg), k.value],
                             keywords=[])
            self.call(gast.copy_location(call, e), out)
            current = astutil.name(out)
        return True
