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

`dataclasses.asdict(o)` and `astuple(o)` of a dataclass known when transforming are written as the display of
deep copies of its fields (RecordContainers).
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


def check_no_records(value, where):
    """Raise where `dataclasses.asdict`/`astuple` would have turned a dataclass in a field into a dict or tuple
    that adsrc wrote as a copy of the field (the field's class was not known when transforming)."""
    stack = [value]
    while stack:
        v = stack.pop()
        if dataclasses.is_dataclass(v) and not isinstance(v, type):
            from ..errors import TransformError
            raise TransformError(
                f"{where}: adsrc wrote this dataclasses.asdict/astuple with a copy of each field, but a field holds "
                f"a {type(v).__name__} dataclass, whose class adsrc did not know when transforming (asdict would "
                "have made it a dict). Write the dict (or tuple) of its fields out.")
        if isinstance(v, (list, tuple)):
            stack.extend(v)
        elif isinstance(v, dict):
            stack.extend(v.values())


class RecordContainers:
    """Mixin of the Normalizer's Calls: `dataclasses.asdict(o)` and `dataclasses.astuple(o)`."""

    def record_container(self, e, target):
        """`dataclasses.asdict(o)` (or astuple) with o of a dataclass known when transforming: the display of its
        fields, each a deep copy (as asdict makes), a field of a dataclass known then in turn as its dict:

            dataclasses.asdict(p)      ->   {"a": copy.deepcopy(p.a), "b": copy.deepcopy(p.b)}

        True, or False if e is not such a call."""
        import copy
        f = e.func
        kind = self.static(f) if isinstance(f, (gast.Name, gast.Attribute)) else None
        if kind not in (dataclasses.asdict, dataclasses.astuple) or len(e.args) != 1 or e.keywords or \
                isinstance(e.args[0], gast.Starred):
            return False
        obj = e.args[0]
        cls = self.known_class(obj) if isinstance(obj, gast.Name) else self.attribute_class(obj)
        if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
            name = kind.__name__
            raise self.error(e, f"adsrc follows `dataclasses.{name}(o)` when it knows o's class when transforming "
                                "(o a name bound to an object made in the function, a dataclass argument, or a field "
                                "its class's __init__ makes so); here it does not.",
                             "Bind the object to a name first (`o = Params(...)`, then "
                             f"`dataclasses.{name}(o)`), or write the {'dict' if name == 'asdict' else 'tuple'} "
                             "of its fields out.")
        where = f"{self.uf.filename}, line {getattr(e, 'lineno', self.stmt.lineno)}"
        deep = astutil.name(self.bind("deepcopy", copy.deepcopy))
        check = astutil.name(self.bind("check_no_records", check_no_records))

        def shown(value, cls):
            parts = []
            for fld in dataclasses.fields(cls):
                read = gast.Attribute(value=astutil.clone(value), attr=fld.name, ctx=gast.Load())
                inner = self.attribute_class(read)
                if isinstance(inner, type) and dataclasses.is_dataclass(inner):
                    parts.append((fld.name, shown(read, inner)))
                    continue
                self.emit(ir.Effect(astutil.call(astutil.clone(check), [astutil.clone(read),
                                                                          astutil.const(where)])), e)
                parts.append((fld.name, astutil.call(astutil.clone(deep), [read])))
            if kind is dataclasses.asdict:
                return gast.Dict(keys=[astutil.const(n) for n, _ in parts], values=[v for _, v in parts])
            return gast.Tuple(elts=[v for _, v in parts], ctx=gast.Load())
        value = gast.fix_missing_locations(gast.copy_location(shown(obj, cls), e))
        self.value(value, target if target is not None else self.temp("record"))
        return True
