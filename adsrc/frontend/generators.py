"""Generator functions, read as functions that return the list of what they yield.

    def layers(w):                      def layers(w):
        for m, n in shapes:                 yielded = []
            yield w[:m*n], w[m*n:]   ->     for m, n in shapes:
                                                yielded.append((w[:m*n], w[m*n:]))
                                            return yielded

A loop over the call, `list(...)`, `zip(...)` or `sum(...)` of it then see the
same items, computed before the loop instead of between its iterations, which
is the same unless the generator and its consumer change a shared object (or
the generator never ends: that is refused). `yield` used as a value (the
`send` protocol) is refused too.
"""

import gast

from .. import astutil

_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)


def own_nodes(node):
    """Nodes in a function's own scope (nested functions, lambdas and classes are not entered), a list."""
    return astutil.preorder(node, lambda n: not isinstance(n, _SCOPES))


def yields(fdef):
    """Does the function itself (not a function nested in it) yield?"""
    return any(isinstance(n, (gast.Yield, gast.YieldFrom)) for n in own_nodes(fdef))


def rewrite_generators(tree, error):
    """Rewrite every generator def in tree (itself included) in place; error(node, problem, hint) raises.
    Returns whether there was one."""
    nodes = astutil.walk(tree)
    if not any(isinstance(n, (gast.Yield, gast.YieldFrom)) for n in nodes):
        return False
    found = [node for node in nodes if isinstance(node, gast.FunctionDef) and yields(node)]
    for node in found:
        _to_list_function(node, error)
    return bool(found)


def _to_list_function(fdef, error):
    taken = astutil.all_names(fdef)
    acc = next(n for n in ("yielded", *(f"yielded_{k}" for k in range(1, 1000))) if n not in taken)
    for n in own_nodes(fdef):
        if isinstance(n, gast.While) and _endless(n):
            raise error(n, "this generator's loop never ends, and adsrc computes everything a generator yields "
                           "before the loop that reads it.",
                        "Give the loop an end (a condition, or `return` when enough items were made), or "
                        "return a list.")
    fdef.body = _block(fdef.body, acc, error)
    start = gast.Assign(targets=[astutil.name(acc, gast.Store())], value=gast.List(elts=[], ctx=gast.Load()),
                        type_comment=None)
    end = gast.Return(value=astutil.name(acc))
    for s in (start, end):
        gast.copy_location(s, fdef)
    fdef.body = [start, *fdef.body, end]
    fdef.adsrc_generator = True        # (frontend/iterators.py: its calls are iterators)
    gast.fix_missing_locations(fdef)


def _block(body, acc, error):
    return [_statement(s, acc, error) for s in body]


def _statement(s, acc, error):
    if isinstance(s, gast.Expr) and isinstance(s.value, (gast.Yield, gast.YieldFrom)):
        method = "append" if isinstance(s.value, gast.Yield) else "extend"
        item = s.value.value if s.value.value is not None else gast.Constant(value=None, kind=None)
        call = gast.Call(func=gast.Attribute(value=astutil.name(acc), attr=method, ctx=gast.Load()),
                         args=[item], keywords=[])
        return gast.copy_location(gast.Expr(value=gast.copy_location(call, s.value)), s)
    if isinstance(s, gast.Return):
        # a generator's `return v` ends it (v only goes to StopIteration)
        if s.value is not None and not isinstance(s.value, gast.Constant):
            raise error(s, "`return <value>` in a generator gives the value to StopIteration, which adsrc "
                           "does not follow.", "Yield the value, or return a list.")
        return gast.copy_location(gast.Return(value=astutil.name(acc)), s)
    if isinstance(s, _SCOPES):
        return s
    for n in _own_expression_nodes(s):
        if isinstance(n, (gast.Yield, gast.YieldFrom)):
            raise error(n, "`yield` used as a value (a generator that is sent values) cannot be differentiated.",
                        "Write a function that returns a list.")
    for field in _BLOCKS:
        if isinstance(getattr(s, field, None), list):
            setattr(s, field, _block(getattr(s, field), acc, error))
    for h in getattr(s, "handlers", []) or []:
        h.body = _block(h.body, acc, error)
    return s


_BLOCKS = ("body", "orelse", "finalbody")


def _own_expression_nodes(s):
    """Nodes of a statement outside its nested blocks (its test, target, iterable, value ...)."""
    for field, value in gast.iter_fields(s):
        if field in _BLOCKS or field == "handlers":
            continue
        for v in value if isinstance(value, list) else [value]:
            if isinstance(v, gast.AST):
                yield v
                yield from own_nodes(v)


def _endless(loop):
    """`while True:` that no break or return of its own leaves."""
    if not (isinstance(loop.test, gast.Constant) and loop.test.value):
        return False
    return not _leaves(loop.body)


def _leaves(body):
    for s in body:
        if isinstance(s, (gast.Break, gast.Return)):
            return True
        if isinstance(s, _SCOPES):
            continue
        if isinstance(s, (gast.For, gast.While)):
            # a break in a nested loop's body leaves only that loop
            if _leaves(s.orelse) or any(isinstance(n, gast.Return) for b in s.body for n in [b, *own_nodes(b)]):
                return True
            continue
        blocks = [getattr(s, f, None) or [] for f in _BLOCKS] + [h.body for h in getattr(s, "handlers", []) or []]
        if any(_leaves(b) for b in blocks):
            return True
    return False
