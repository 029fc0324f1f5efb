"""Inline calls to nested functions (defs and lambdas) where they are called.

Runs on structured IR after jumps are removed (each nested function then has
one result). The callee's locals get fresh names; its parameters are bound
by plain assignments, so a nested function that changes its argument in
place changes the caller's object, as in Python (functionalize.py follows
that change). A nested function's free names read the enclosing function's
variables at the call, which is when Python reads them too.

A `Def` that nothing calls or reads afterwards is removed; one used as a value
(passed to another function) stays.
"""


import gast

from .. import astutil
from .tables import LOCAL_FUNCTION_HINT
from ..ir import nodes as ir
from ..ir.walk import reads_anywhere, rename_all, rename_expr, target_names


class _BranchDefs:
    """A nested function name bound by different defs in the branches of a run-time `if` (or by a def in a
    loop and one before it)."""

    def __init__(self, line, loop=False):
        self.what = f"whether the loop at line {line} runs" if loop else f"the branch of the `if` at line {line} taken"


class _Rebound:
    """A nested function's name bound afterwards to something else (`act = relu`, a module function): its calls
    are not the def's."""


_REBOUND = _Rebound()


class Inliner:
    def __init__(self, uf, namer):
        self.uf = uf
        self.namer = namer
        self.stack = []          # nested functions being inlined (recursion is refused)
        self.passed = set()      # parameters of the nested defs being read: functions their callers pass

    def block(self, stmts, visible):
        out = []
        for s in stmts:
            if isinstance(s, ir.Def):
                visible[s.name] = s       # visible in its own body: a recursive call is refused when inlined
                self.stack.append(s.name)
                params = set(s.fn.params) - self.passed
                self.passed |= params
                try:
                    s.fn.body = self.block(s.fn.body, {k: v for k, v in visible.items() if k not in params})
                finally:
                    self.stack.pop()
                    self.passed -= params
                out.append(s)
            elif isinstance(s, ir.CallLocal):
                out.extend(self.inline(s, visible))
            elif isinstance(s, ir.Copy) and isinstance(s.target, str) and isinstance(s.expr, gast.Name) and \
                    s.expr.id in visible:
                visible[s.target] = visible[s.expr.id]      # f = g: calls of f are calls of g
                out.append(s)
            elif isinstance(s, ir.If):
                v1, v2 = dict(visible), dict(visible)
                s.body, s.orelse = self.block(s.body, v1), self.block(s.orelse, v2)
                for name in set(v1) | set(v2):
                    a, b = v1.get(name), v2.get(name)
                    if a is not b:
                        both = a is not None and b is not None and (a is not _REBOUND or b is not _REBOUND)
                        visible[name] = _BranchDefs(s.loc.line) if both else (a or b)
                out.append(s)
            elif isinstance(s, (ir.For, ir.While)):
                if isinstance(s, ir.While):
                    s.test_body = self.block(s.test_body, dict(visible))
                inner = dict(visible)
                s.body = self.block(s.body, inner)
                for name, d in inner.items():
                    if d is not visible.get(name):
                        # a def in the loop is the one called after it (a loop that never ran leaves the name
                        # unbound in Python); one that replaces an earlier def depends on the trip count
                        visible[name] = d if name not in visible else _BranchDefs(s.loc.line, loop=True)
                out.append(s)
            else:
                for name in target_names(getattr(s, "target", None)):
                    if isinstance(name, str):
                        visible[name] = _REBOUND        # def f ...; f = relu: calls of f call relu
                out.append(s)
        return out

    def inline(self, s, visible):
        call = s.expr
        func = call.func
        name = func.id
        d = visible.get(name)
        if d is _REBOUND:
            d = None
        if isinstance(d, _BranchDefs):
            raise self.uf.error(s.loc, f"the nested function `{name}` is defined differently depending on "
                                       f"{d.what} when the code runs; adsrc "
                                       "inlines nested functions when it transforms the code.",
                                "Mark the argument the branch depends on static (static_argnums/"
                                "static_argnames), or define one function that branches inside.")
        if d is None and name in self.passed:
            return [s]          # `f(t, y)` with f a parameter: the function a call passes, when that call is inlined
        if d is None:
            # a local name that does not hold a function defined here: adsrc cannot see what it calls
            return [ir.Opaque(s.target, s.expr, describe=s.describe or f"`{self.namer.user(name)}`", loc=s.loc,
                              hint=s.hint or LOCAL_FUNCTION_HINT, dynamic=astutil.spelled_out(s.expr))]
        if name in self.stack:
            raise self.uf.error(s.loc, f"the nested function `{name}` calls itself; adsrc does not differentiate "
                                       "recursive nested functions.",
                                "Define the recursive function at module level.")
        fn = astutil.clone(d.fn)
        bound, check = self.bind(fn, name, call, s)
        local = (set(fn.params) | _bound_names(fn.body)) - fn.nonlocals     # `nonlocal n`: the caller's n
        renames = {n: self.namer.fresh(n) for n in sorted(local)}
        rename_all(fn.body, renames)
        result = rename_expr(fn.result, renames)
        out = []
        for p, value in bound:
            out.append(_assign(renames[p], value, s.loc))
        if check is not None:
            out.append(ir.Raw(check, loc=s.loc))
        self.stack.append(name)
        inner = dict(visible)
        for p, value in bound:          # a nested function passed as an argument: calls of the parameter call it
            if isinstance(value, gast.Name) and value.id in visible and isinstance(renames[p], str):
                inner[renames[p]] = visible[value.id]
        try:
            out.extend(self.block(fn.body, inner))
        finally:
            self.stack.pop()
        out.append(_assign(s.target, result, s.loc))
        if isinstance(result, gast.Name) and result.id in inner and isinstance(s.target, str):
            visible[s.target] = inner[result.id]          # a function returned by the nested function
        return out

    def bind(self, fn, name, call, s):
        """(parameter, value) pairs binding a call's arguments to a nested function's parameters, as Python
        does; `*args` is bound to a tuple display (or the call's `*tuple(xs)`), `**kwargs` to a dict display."""
        a = fn.args
        pos = [p.id for p in list(a.posonlyargs) + list(a.args)]
        defaults = dict(zip(pos[len(pos) - len(a.defaults):], a.defaults))
        for p, d in zip(a.kwonlyargs, a.kw_defaults):
            if d is not None:
                defaults[p.id] = d
        names = pos + [p.id for p in a.kwonlyargs]
        args = list(call.args)
        star = _starred(call)
        if star is not None:
            args.pop()
        if any(isinstance(x, gast.Starred) for x in args) or any(k.arg is None for k in call.keywords) or \
                (star is not None and len(args) > len(pos)):
            raise self.uf.error(s.loc, f"adsrc cannot match the arguments of this call to `{name}`: `*` or `**` "
                                       "unpacks a sequence whose length it does not know when transforming.",
                                "Pass the arguments one by one, or unpack a tuple written in the function "
                                "(`args = (a, b)`, then `f(*args)`).")
        if len(args) > len(pos) and a.vararg is None:
            raise self.uf.error(s.loc, f"`{name}` takes {len(pos)} positional arguments but {len(args)} "
                                       "were given.")
        values = dict(zip(pos, args))
        check = None
        if star is not None:          # f(*xs): xs[0], xs[1]... fill the parameters args leave, the rest is *args
            given = {k.arg for k in call.keywords}
            rest = pos[len(args):]
            rest = rest[:next((i for i, p in enumerate(rest) if p in given), len(rest))]
            values.update((p, gast.Subscript(value=astutil.clone(star), slice=astutil.const(i), ctx=gast.Load()))
                          for i, p in enumerate(rest))
            if a.vararg is None:
                check = _length_check(star, len(rest), name)       # as Python's call checks len(xs)
            elif rest:
                star = gast.Subscript(value=star, slice=gast.Slice(lower=astutil.const(len(rest)), upper=None,
                                                                   step=None), ctx=gast.Load())
        extra = {}
        for k in call.keywords:
            if k.arg in values or (k.arg not in names and a.kwarg is None):
                raise self.uf.error(s.loc, f"`{name}` got an unexpected or repeated argument `{k.arg}`.")
            (values if k.arg in names else extra)[k.arg] = k.value
        out = []
        for p in names:
            if p in values:
                out.append((p, astutil.clone(values[p])))
            elif p in defaults:
                out.append((p, astutil.clone(defaults[p])))
            else:
                raise self.uf.error(s.loc, f"`{name}` is missing the argument `{p}`.")
        if a.vararg is not None:
            out.append((a.vararg.id, astutil.clone(star) if star is not None else
                        astutil.tuple_([astutil.clone(x) for x in args[len(pos):]])))
        if a.kwarg is not None:
            out.append((a.kwarg.id, gast.Dict(keys=[astutil.const(k) for k in extra],
                                              values=[astutil.clone(v) for v in extra.values()])))
        return out, check


def _bound_names(body):
    """Names a function body binds (Python's locals): not the objects it changes in place."""
    from ..ir.walk import walk
    out = set()
    for s in walk(body):
        if isinstance(s, ir.Op):
            out.update(target_names(s.target))
        elif isinstance(s, (ir.Def, ir.InplaceOp)):
            out.add(s.name if isinstance(s, ir.Def) else s.target)
        elif isinstance(s, ir.MutatingCall) and s.target:
            out.add(s.target)
        elif isinstance(s, ir.For):
            out.update(target_names(s.target))
            if s.stop:
                out.add(s.stop)
    return out


def _assign(target, value, loc):
    if isinstance(value, gast.Name):
        return ir.Copy(target, value, loc=loc)
    if isinstance(value, gast.Subscript):
        return ir.GetItem(target, value, loc=loc)
    if isinstance(value, (gast.Tuple, gast.Dict)):
        return ir.Pack(target, value, loc=loc)
    return ir.Const(target, value, loc=loc)


def _starred(call):
    """xs of a call's last positional argument `*xs`, else None."""
    return call.args[-1].value if call.args and isinstance(call.args[-1], gast.Starred) else None


def _length_check(seq, n, name):
    """`if len(seq) != n: raise TypeError(...)`, as Python's call of a function without *args would."""
    message = f"the call of {name}() unpacks a sequence with `*` that must hold {n} items (its parameters)"
    return gast.If(test=gast.Compare(left=astutil.call("len", [astutil.clone(seq)]), ops=[gast.NotEq()],
                                     comparators=[astutil.const(n)]),
                   body=[gast.Raise(exc=astutil.call("TypeError", [astutil.const(message)]), cause=None)], orelse=[])


def _drop_unused_defs(body, result, uf):
    used = reads_anywhere(body) | (set(astutil.names_loaded(result)) if result is not None else set())

    def clean(stmts):
        out = []
        for s in stmts:
            if isinstance(s, ir.Def) and s.name not in used:
                continue
            if isinstance(s, ir.Def) and s.fn.nonlocals:
                raise uf.error(s.loc, f"the nested function `{s.name}` assigns the enclosing function's "
                                      f"{_names(s.fn.nonlocals)} (`nonlocal`) and is used as a value; adsrc "
                                      "follows such a function only where it is called.",
                               "Call it directly, or return the new value from it instead.")
            if isinstance(s, ir.If):
                s.body, s.orelse = clean(s.body), clean(s.orelse)
            elif isinstance(s, (ir.For, ir.While)):
                s.body = clean(s.body)
                if isinstance(s, ir.While):
                    s.test_body = clean(s.test_body)
            out.append(s)
        return out

    return clean(body)


def inline_local_calls(fn, namer):
    """Inline every call to a nested function of fn, in place."""
    fn.body = Inliner(fn.uf, namer).block(fn.body, {})
    fn.body = _drop_unused_defs(fn.body, fn.result, fn.uf)
    return fn


def _names(names):
    return ", ".join(f"`{n}`" for n in sorted(names))
