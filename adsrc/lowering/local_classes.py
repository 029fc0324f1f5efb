"""A class defined inside the differentiated function.

Python makes the class again on every call; adsrc makes it once, when it transforms the function,
from the class's own source (registered like a file's, so that its methods can be read and
differentiated), and the function's name for it is then a class known when transforming, whose
objects adsrc follows as it does those of a module-level class. That is the same program as long as
the class does not read the function's variables (it would see their values at the call): such a
class is refused by name, as is one whose name is bound more than once.
"""

import copy

import gast

from .. import astutil
from ..cache import made_once
from ..frontend.source import define_made
from .lifting import free_names

_MADE = {}      # (function's code, the class's text) -> the class (bounded)


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
