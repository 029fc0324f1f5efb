"""`s._replace(h=v)` on a namedtuple and `dataclasses.replace(o, w=v)` on a dataclass, whose class is known
when transforming: the construction of a new record, its other fields read from the old one,

    s._replace(h=v)                  ->   State(h=v, c=s.c)
    dataclasses.replace(o, w=v)      ->   Opt(w=v, lr=o.lr)

which adsrc follows as any construction (a dataclass's __post_init__ runs again, as it does in Python).
"""

import dataclasses

import gast

from .. import astutil
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
        if cls is None or not _record_type(cls) or any(k.arg is None for k in e.keywords):
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
