"""Calls of nested functions that adsrc lifts to module-level copies (`adsrc.grad(inner)(w)`, a nested def that
calls itself), and the lengths of sequences known when transforming (`f(*pair)`): mixed into calls.py's Calls."""

import builtins

import gast

from .. import astutil
from .. import rules as rules_mod
from ..frontend.source import lambda_to_def
from . import closures, lifting


class NestedCalls:
    """Mixin of the Normalizer's Calls."""

    def gradient_of_nested(self, e):
        """`adsrc.grad(inner, ...)(w)` with inner a nested def or lambda of this function (its options known
        when transforming): the call of the gradient of its lifted copy (lifting.py), or None."""
        from .. import api
        f = e.func
        if self.static(f.func) not in (api.grad, api.value_and_grad) or not f.args or \
                any(isinstance(a, gast.Starred) for a in list(f.args) + list(e.args)) or \
                any(k.arg is None for k in list(f.keywords) + list(e.keywords)):
            return None
        inner = f.args[0]
        if isinstance(inner, gast.Lambda):
            fdef = lambda_to_def(astutil.clone(inner), "inner")
        elif isinstance(inner, gast.Name) and self.is_local(inner.id):
            fdef = lifting.nested_def(self.uf.node, inner.id)
        else:
            return None
        options = [self.static(a) if not astutil.is_constant_literal(a) else astutil.literal_value(a)
                   for a in f.args[1:]]
        keywords = {k.arg: self.static(k.value) if not astutil.is_constant_literal(k.value) else
                    astutil.literal_value(k.value) for k in f.keywords}
        if fdef is None or any(v is rules_mod.NOT_STATIC for v in options + list(keywords.values())):
            return None
        lifted = lifting.lift(fdef, self.uf, self.is_local)
        if lifted is None:
            return None
        made = lifting.gradient(self.static(f.func), lifted[0], options, keywords)
        if made is None:
            return None
        passed = [gast.keyword(arg=p, value=astutil.name(p)) for p in lifted[1]]
        return gast.Call(func=astutil.name(self.bind(fdef.name + "_grad", made)), args=list(e.args),
                         keywords=list(e.keywords) + passed)

    def recursive_nested(self, e):
        """A call of a nested def that calls itself: the call of its lifted copy (lifting.py), or None."""
        fdef = lifting.nested_def(self.uf.node, e.func.id)
        if fdef is None or not isinstance(getattr(fdef, "body", None), list) or not lifting.calls_itself(fdef):
            return None
        lifted = lifting.lift(fdef, self.uf, self.is_local, recursive=True)
        made = closures.with_functions(self, *lifted) if lifted is not None else None
        if made is None:
            return None
        fn, _, kws = made        # (a function of this one it calls is passed on: closures.py)
        passed = [gast.keyword(arg=k, value=v) for k, v in kws]
        return gast.Call(func=astutil.name(self.bind(fn.__name__, fn)), args=list(e.args),
                         keywords=list(e.keywords) + passed)

    def known_length(self, node):
        """The length of a tuple or list known when transforming (a local tuple display bound once,
        or a global, closure or static sequence), else None."""
        if isinstance(node, gast.Name) and node.id in self.tuple_lengths:
            return self.tuple_lengths[node.id]
        if isinstance(node, (gast.Tuple, gast.List)) and not any(isinstance(x, gast.Starred) for x in node.elts):
            return len(node.elts)
        if isinstance(node, gast.Subscript) and isinstance(node.slice, gast.Slice):     # args[1:]
            n = self.known_length(node.value)
            parts = (node.slice.lower, node.slice.upper, node.slice.step)
            if n is None or any(b is not None and not (isinstance(b, gast.Constant) and type(b.value) is int)
                                for b in parts):
                return None
            return len(range(*slice(*(b.value if b is not None else None for b in parts)).indices(n)))
        if isinstance(node, gast.Call) and len(node.args) == 1 and not node.keywords and \
                self.static(node.func) in (builtins.list, builtins.tuple):                  # list(args)
            return self.known_length(node.args[0])
        cls = self.known_class(node) if isinstance(node, gast.Name) else None
        if isinstance(cls, type) and issubclass(cls, tuple) and isinstance(getattr(cls, "_fields", None), tuple):
            return len(cls._fields)         # a namedtuple of a class known here: math.hypot(*point)
        if isinstance(node, (gast.Name, gast.Attribute)):
            from ..frontend import static_sequence
            seq = static_sequence(node, self.uf, self.is_local)
            return None if seq is None else len(seq)
        return None
