"""A function known when transforming passed to a nested function: `apply(x, np.cos)`, `apply(x, fn=relu)`, or
`def apply(v, fn=np.sin)` called without fn.

A nested function is inlined where it is called (inline.py), and a call of one of its parameters is followed
when the caller passes a function defined in the enclosing function (a def or a lambda). A module function, a
NumPy function or a function of a class passed so is none of those: inside the nested function, `fn(v)` is a
call of a local name. Such a call is therefore made the call of a copy of the nested function in which the
parameter is read as the function itself (a name bound to it, as `np.cos` is), defined right where it is
called; the copy's other parameters get the call's arguments (or the literal defaults), by keyword:

    def apply(v, fn=np.sin):                  def apply_1(v):
        return fn(v) * 2                          return cos(v) * 2        # cos: np.cos
    apply(x, fn=np.cos)            is         apply_1(v=x)

This is what Python computes: a nested function reads its free variables when it is called (the copy,
defined at the call, reads them then too), and the function passed never changes while the body runs, as
long as the body never binds the parameter (then the call is left as it was). A nested function with
`*args`/`**kwargs`, a default that is not a literal for a parameter the call does not pass, or one defined
in another nested function than the caller is left as it was too.
"""

import copy

import gast

from .. import astutil
from .. import rules as rules_mod
from ..frontend.source import lambda_to_def


class PassedFunctions:
    """Mixin of the Normalizer (calls.py)."""

    def with_passed_functions(self, e):
        """The call e of a nested function, as the call of a copy of it with its parameters given a function
        known when transforming read as that function (see the module's docstring); None if there is none."""
        if any(isinstance(a, gast.Starred) for a in e.args) or any(k.arg is None for k in e.keywords):
            return None
        fdef = self.own_function(e.func.id)
        if fdef is None:
            return None
        a = fdef.args
        if a.vararg is not None or a.kwarg is not None or fdef.decorator_list:
            return None
        pos = [p.id for p in list(a.posonlyargs) + list(a.args)]
        names = pos + [p.id for p in a.kwonlyargs]
        if len(e.args) > len(pos):
            return None
        defaults = dict(zip(pos[len(pos) - len(a.defaults):], a.defaults))
        defaults.update((p.id, d) for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None)
        given = dict(zip(pos, e.args))
        for k in e.keywords:
            if k.arg in given or k.arg not in names:
                return None         # (Python's TypeError: the call as it was raises it)
            given[k.arg] = k.value
        known, rest = {}, []
        for p in names:
            value = given.get(p, defaults.get(p))
            if value is None:
                return None
            fn = self.passed_function(value)
            if fn is not rules_mod.NOT_STATIC and not _rebound(fdef, p):
                known[p] = astutil.name(self.bind(_stem(fn), fn))
            elif self.passed_partial(value) and not _rebound(fdef, p):
                known[p] = value        # functools.partial(np.power, 2.0): read as written where it is called
            elif p in given or astutil.is_constant_literal(value):
                rest.append((p, value))
            else:
                return None         # (a default computed where the def ran)
        if not known:
            return None
        made = copy.deepcopy(fdef)
        made.name = self.temp(fdef.name)
        keep = [p for p, _ in rest]
        made.args = gast.arguments(args=[gast.Name(id=p, ctx=gast.Param(), annotation=None, type_comment=None)
                                         for p in keep], posonlyargs=[], vararg=None, kwonlyargs=[], kw_defaults=[],
                                   kwarg=None, defaults=[])
        made.body = [_Substituted(known).visit(b) for b in made.body]
        self.local_defs.add(made.name)
        self.stmt_FunctionDef(made)
        call = gast.Call(func=astutil.name(made.name), args=[],
                         keywords=[gast.keyword(arg=p, value=v) for p, v in rest])
        return gast.fix_missing_locations(gast.copy_location(call, e))

    def note_lambda(self, fname, fdef):
        """Remember the def a lambda of the function being normalized is emitted as (a name of adsrc's)."""
        if not hasattr(self, "_lambdas"):
            self._lambdas = {}
        self._lambdas[fname] = (copy.deepcopy(fdef), self.fdefs[-1])

    def own_function(self, name):
        """The FunctionDef of the nested def or lambda `name` of the function being normalized, or None."""
        lam = getattr(self, "_lambdas", {}).get(name)
        if lam is not None:
            return lam[0] if lam[1] is self.fdefs[-1] else None
        return _own_def(self.fdefs[-1], name) if name in self.def_names else None

    def passed_partial(self, value):
        """Is value `functools.partial(f, ...)` of a function known when transforming, with arguments known then?"""
        return isinstance(value, gast.Call) and self.function_entry(value) and \
            self.passed_function(value.args[0]) is not rules_mod.NOT_STATIC

    def passed_function(self, value):
        """The function an argument (or default) written as a name or attribute means when transforming (a
        module's or NumPy's function, a class's), or NOT_STATIC (a local, a def or lambda of this function)."""
        if not isinstance(value, (gast.Name, gast.Attribute)):
            return rules_mod.NOT_STATIC
        root = value
        while isinstance(root, gast.Attribute):
            root = root.value
        if not isinstance(root, gast.Name) or root.id in self.def_names or root.id in self.local_defs or \
                self.is_local(root.id) and root.id not in self.static_locals:      # (`for g in (np.sin, f)`)
            return rules_mod.NOT_STATIC
        fn = self.static(value)
        return fn if fn is not rules_mod.NOT_STATIC and callable(fn) else rules_mod.NOT_STATIC


class _Substituted(gast.NodeTransformer):
    """The parameters' reads replaced by (copies of) the expressions of the functions passed."""

    def __init__(self, known):
        self.known = known

    def visit_Name(self, node):
        if isinstance(node.ctx, gast.Load) and node.id in self.known:
            return gast.copy_location(astutil.clone(self.known[node.id]), node)
        return node


def _own_def(fdef, name):
    """The one def (or lambda assigned to the name) called `name` in fdef's own body, not in a function nested
    in it, as a FunctionDef; None if there is not exactly one, or the name is bound otherwise too."""
    found, other = [], False
    stack = list(fdef.body)
    while stack:
        n = stack.pop()
        if isinstance(n, gast.FunctionDef):
            if n.name == name:
                found.append(n)
            continue
        if isinstance(n, gast.Lambda):
            continue
        if isinstance(n, gast.Assign) and isinstance(n.value, gast.Lambda) and len(n.targets) == 1 and \
                isinstance(n.targets[0], gast.Name) and n.targets[0].id == name:
            found.append(lambda_to_def(copy.deepcopy(n.value), name))
            continue
        if isinstance(n, gast.Name) and n.id == name and not isinstance(n.ctx, gast.Load):
            other = True
        stack.extend(gast.iter_child_nodes(n))
    if any(isinstance(p, gast.Name) and p.id == name for p in astutil.walk(fdef.args)):
        other = True
    return found[0] if len(found) == 1 and not other else None


def _rebound(fdef, p):
    """Does fdef bind its parameter p again, or a function nested in it a name p of its own?"""
    for n in (m for s in fdef.body for m in astutil.walk(s)):
        if isinstance(n, gast.Name) and n.id == p and not isinstance(n.ctx, gast.Load):
            return True
        if isinstance(n, (gast.Global, gast.Nonlocal)) and p in n.names:
            return True
    return False


def _stem(fn):
    name = getattr(fn, "__name__", "fn")
    return name if isinstance(name, str) and name.isidentifier() else "fn"
