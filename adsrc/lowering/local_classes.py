"""A class defined inside the differentiated function.

Python makes the class again on every call; adsrc makes it once, when it transforms the function,
from the class's own source (registered like a file's, so that its methods can be read and
differentiated), and the function's name for it is then a class known when transforming, whose
objects adsrc follows as it does those of a module-level class. That is the same program as long as
the class does not read the function's variables (it would see their values at the call): such a
class is refused by name, as is one whose name is bound more than once.

`P = namedtuple("P", ["W", "b"])` in the function is made the same way: once, when transforming, if its
arguments are constants (`typename`, the field names, `defaults=`, `rename=`); with other arguments it is
refused naming the line, as adsrc cannot read the code namedtuple makes.
"""

import collections
import copy

import gast

from .. import astutil
from ..cache import made_once
from ..frontend.source import define_made
from .lifting import free_names

_MADE = {}      # (function's code, the class's text) -> the class (bounded)
_RECORD_MAKERS = (collections.namedtuple,)      # functions that make a class by running code they write


class LocalClasses:
    """Mixin of the Normalizer: `class` statements."""

    def stmt_ClassDef(self, s):
        if s.name not in self.single:
            raise self.error(s, f"the class `{s.name}` is defined here and its name assigned elsewhere in the "
                                "function.", "Define the class at module level.")
        reads = sorted(n for n in _free_in_class(s) if self.is_local(n) and n != s.name)
        if reads:
            raise self.error(s, f"the class `{s.name}` reads the function's variable `{reads[0]}`, which adsrc "
                                "cannot give it: it makes a class defined in the function once, when it "
                                "transforms the function.",
                             f"Pass `{reads[0]}` to the class's `__init__`, or define the class at module level.")
        given = {n: self.static_locals[n] for n in sorted(_free_in_class(s)) if n in self.static_locals}
        key = (self.uf.fun.__code__, gast.dump(s), tuple((n, id(v)) for n, v in given.items()))
        cls = made_once(_MADE, key, lambda: _make(s, self.uf, given))
        self.static_locals[s.name] = cls
        from ..ir import nodes as ir
        self.emit(ir.Const(s.name, astutil.name(self.bind(s.name, cls))), s)


    def record_class(self, target, value):
        """`P = namedtuple("P", ["W", "b"])` with constant arguments: P is the class, made when transforming
        (once per call site and arguments), a constant. False if value is not a call of namedtuple."""
        if not isinstance(value, gast.Call) or not isinstance(value.func, (gast.Name, gast.Attribute)) or \
                not is_record_maker(self.static(value.func)):
            return False
        parts = list(value.args) + [k.value for k in value.keywords]
        if target not in self.single or any(isinstance(a, gast.Starred) for a in value.args) or \
                any(k.arg is None for k in value.keywords) or not all(astutil.is_constant_literal(a) for a in parts):
            made = f"{target} = " if target is not None else ""
            where = " in the differentiated function itself (not a function nested in it)" \
                if len(self.scopes) > 1 else ""
            raise self.error(value, f"`{made}{astutil.unparse(value.func)}(...)` makes a class inside the "
                                    f"function; adsrc makes it once, when transforming, only{where} when it is bound "
                                    "to a name once and its arguments are constants written out (namedtuple runs "
                                    "code it writes itself, which adsrc cannot read).",
                             f"Define the namedtuple at module level, or write `{made or 'P = '}"
                             f"{astutil.unparse(value.func)}(...)` with its type name and field names as literals.")
        args = [astutil.literal_value(a) for a in value.args]
        kwargs = {k.arg: astutil.literal_value(k.value) for k in value.keywords}
        key = (self.uf.fun.__code__, gast.dump(value))
        try:
            cls = made_once(_MADE, key, lambda: self.static(value.func)(*args, **kwargs))
        except (TypeError, ValueError) as err:
            raise self.error(value, f"`{astutil.unparse(value)}` raises {type(err).__name__}: {err}",
                             "Check the field names.") from None
        cls.__qualname__ = f"{self.uf.fun.__qualname__}.<locals>.{cls.__name__}"
        self.static_locals[target] = cls
        from ..ir import nodes as ir
        self.emit(ir.Const(target, astutil.name(self.bind(target, cls))), value)
        return True


def is_record_maker(obj):
    return any(obj is m for m in _RECORD_MAKERS)


def _free_in_class(s):
    """Names the class's statements and methods read without binding them in their own scope."""
    out = set()
    class_bound = {n.id for st in s.body if not isinstance(st, gast.FunctionDef) for n in astutil.walk(st)
                   if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
    for st in s.body:
        if isinstance(st, gast.FunctionDef):
            free = free_names(_without_decorators(st))
            if free is None:          # (defaults computed from names, `global`...): every name it reads
                free = [n.id for n in astutil.walk(st) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)]
            out.update(free)
            out.update(n.id for d in st.decorator_list for n in astutil.walk(d)
                       if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load))
        else:
            out.update(n.id for n in astutil.walk(st) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)
                       and n.id not in class_bound)
    for part in list(s.bases) + list(s.keywords) + list(s.decorator_list):
        out.update(n.id for n in astutil.walk(part) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load))
    return out


def _without_decorators(fdef):
    bare = copy.copy(fdef)
    bare.decorator_list = []
    return bare


def _make(s, uf, given):
    """The class, made from its source by a function whose parameters are the names it reads that the
    function imported (`from dataclasses import dataclass` in it): their values, known when transforming."""
    node = gast.gast_to_ast(gast.Module(body=[copy.deepcopy(s)], type_ignores=[])).body[0]
    label = f"{s.name}, defined in {uf.filename}:{getattr(s, 'lineno', '?')}"
    cls = define_made(node, given, uf.fun.__globals__, label)
    cls.__qualname__ = f"{uf.fun.__qualname__}.<locals>.{s.name}"
    return cls
