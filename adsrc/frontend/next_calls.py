"""`next(it)` on an iterator the function makes, read as taking the first item off a list.

adsrc reads iterators as lists of their items (frontend/iterators.py). An iterator a function makes and then
advances with `next` becomes a list that each `next` shortens:

    it = iter(xs)                      it = list(xs)
    first = next(it)           ->      first, it = next_split(it)
    for v in it: ...                   for v in it: ...

`next_split` (`v, it = next_split(it)`, one statement) raises StopIteration on an empty list as `next` does
(`next(it, default)` gives the default), so `while True: try: v = next(it) except StopIteration: break` works
too; `next(v for v in xs if ...)` of an iterator made in the call is the first item of the list. A loop over
such an iterator takes its items off the list one by one (a `while` loop), so `for a in it: b = next(it)`, a
`break` and the `next` after it see what Python's see; one call taking all the rest (`sum(it)`, `list(it)`),
read last, gets the list. A `next` inside
an expression (`y = next(it) * 2.0 + next(it)`) first becomes a statement of its own, in Python's order of
evaluation, unless Python may skip it (`and`, `or`, `a if c else b`); a name read any other way than by
`next` and by loops over it is left to iterators.py, which refuses what it cannot follow.
"""

import gast

from .. import astutil
from .generators import own_nodes

_MAKERS = ("iter", "map", "filter", "zip", "enumerate", "reversed")


def rewrite_next_calls(uf):
    """Rewrite, in place, the iterators uf's scopes (its own and its nested functions') make and advance with
    `next`; returns whether any."""
    nodes = astutil.walk(uf.node)
    if not any(isinstance(n, gast.Name) and n.id == "next" for n in nodes):
        return False
    scopes = [uf.node] + [n for n in nodes if isinstance(n, gast.FunctionDef) and n is not uf.node]
    return any([_rewrite_scope(uf, scope) for scope in scopes])


def _rewrite_scope(uf, scope):
    nodes = own_nodes(scope)
    for n in nodes:          # next(v for v in xs if ...) of an iterator made right there
        if _is_next(n) and _makes_iterator(uf, n.args[0]):
            n.args[0] = _as_list(n.args[0])
            _call_helper(n, "next_item" if len(n.args) == 1 else "next_item_or")
    if _hoist_nested(uf, scope, nodes):
        nodes = own_nodes(scope)
    names = _advanced(uf, scope, nodes)
    if not names:
        return False
    for s in nodes:
        if isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name) and \
                s.targets[0].id in names:
            s.value = _as_list(s.value)
    for holder in [scope] + nodes:
        for field in ("body", "orelse", "finalbody"):
            stmts = getattr(holder, field, None)
            if isinstance(stmts, list) and stmts and isinstance(stmts[0], gast.stmt):
                setattr(holder, field, _statements(stmts, names))
        if isinstance(holder, gast.ExceptHandler):
            holder.body = _statements(holder.body, names)
    for holder in [scope] + nodes:
        for field in ("body", "orelse", "finalbody"):
            stmts = getattr(holder, field, None)
            if isinstance(stmts, list):
                stmts[:] = [_taking_loop(st, names) for st in stmts]
    return True


def _taking_loop(s, names):
    """`for v in it: ...` over an iterator the function advances -> `while len(it) > 0: v, it = next_split(it)`
    (then the body): each pass takes its item off the list, as Python's loop takes it from the iterator, so a
    `next(it)` in the body, a `break`, and what reads `it` after the loop see what Python's see."""
    if not (isinstance(s, gast.For) and isinstance(s.iter, gast.Name) and s.iter.id in names):
        return s
    name = s.iter.id
    split = gast.Call(func=astutil.name("next"), args=[astutil.name(name)], keywords=[])
    _call_helper(split, "next_split")
    take = gast.Assign(targets=[gast.Tuple(elts=[s.target, astutil.name(name, gast.Store())], ctx=gast.Store())],
                       value=split, type_comment=None)
    test = gast.Compare(left=gast.Call(func=astutil.name("len"), args=[astutil.name(name)], keywords=[]),
                        ops=[gast.Gt()], comparators=[astutil.const(0)])
    loop = gast.While(test=test, body=[gast.copy_location(take, s)] + s.body, orelse=s.orelse)
    return gast.fix_missing_locations(gast.copy_location(loop, s))


def _advanced(uf, scope, nodes):
    """Names bound once to an iterator the function makes, read only by `next` calls (as a statement's value)
    and loops over them."""
    bound = {}
    for s in nodes:
        if isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name) and \
                _makes_iterator(uf, s.value):
            bound.setdefault(s.targets[0].id, []).append(s)
    out = set()
    for name, assigns in bound.items():
        stores = [n for n in nodes if isinstance(n, gast.Name) and n.id == name and not isinstance(n.ctx, gast.Load)]
        if len(assigns) != 1 or len(stores) != 1:
            continue
        reads = [n for n in astutil.walk(scope) if isinstance(n, gast.Name) and n.id == name and
                 isinstance(n.ctx, gast.Load)]
        nexts = [s for s in nodes if _next_of(s, name) is not None]
        loops = [s for s in nodes if isinstance(s, gast.For) and isinstance(s.iter, gast.Name) and s.iter.id == name]
        if nexts and len(reads) == len(nexts) + len(loops) + _rest_taken(scope, nodes, name, reads, nexts + loops):
            out.add(name)
    return out


_CONSUMERS = ("sum", "list", "tuple", "sorted", "max", "min", "any", "all")


def _rest_taken(scope, nodes, name, reads, others):
    """1 when the last read of name, after its `next` calls and loops and in no loop, is the argument of a call
    that takes all the items left (`rest = sum(it)`, `list(it)`): the list of them is what it takes; else 0."""
    last = max(reads, key=lambda n: (n.lineno, n.col_offset))
    taking = [n for n in astutil.walk(scope) if isinstance(n, gast.Call) and isinstance(n.func, gast.Name)
              and n.func.id in _CONSUMERS and len(n.args) == 1 and n.args[0] is last]
    in_loop = any(last in set(astutil.walk(loop)) for loop in nodes if isinstance(loop, (gast.For, gast.While)))
    after = all(last.lineno > getattr(s, "end_lineno", s.lineno) for s in others)
    return 1 if taking and not in_loop and after else 0


def _hoist_nested(uf, scope, nodes):
    """`y = next(it) * 2.0 + next(it)` -> `it_next = next(it); it_next_1 = next(it); y = it_next * 2.0 + it_next_1`
    for the iterators the scope makes: each `next` becomes a statement of its own, in the order Python
    evaluates them. Calls in parts Python may skip (`and`/`or`, `a if c else b`, lambdas, comprehensions) or
    evaluate in another order (dict displays, assignment targets) stay where they are. Returns whether any."""
    made = {s.targets[0].id for s in nodes if isinstance(s, gast.Assign) and len(s.targets) == 1 and
            isinstance(s.targets[0], gast.Name) and _makes_iterator(uf, s.value)}
    if not made:
        return False
    taken = {n.id for n in astutil.walk(scope) if isinstance(n, gast.Name)}
    changed = False
    for holder in [scope] + nodes:
        for field in ("body", "orelse", "finalbody"):
            stmts = getattr(holder, field, None)
            if not (isinstance(stmts, list) and stmts and isinstance(stmts[0], gast.stmt)):
                continue
            out = []
            for st in stmts:
                calls = [] if any(_next_of(st, n) is not None for n in made) else \
                    [c for part in _evaluated(st) for c in _nexts_in_order(part, made)]
                for call in calls:
                    name = astutil.fresh_name(f"{call.args[0].id}_next", taken)
                    out.append(gast.fix_missing_locations(gast.copy_location(
                        gast.Assign(targets=[astutil.name(name, gast.Store())], value=_replace(st, call, name),
                                    type_comment=None), st)))
                    changed = True
                out.append(st)
            setattr(holder, field, out)
    return changed


def _evaluated(s):
    """The expressions of statement s evaluated before it does anything else (in that order)."""
    if isinstance(s, (gast.Assign, gast.Expr, gast.Return)) and s.value is not None:
        return [s.value]
    if isinstance(s, gast.AugAssign):
        return [s.value]
    if isinstance(s, gast.If):
        return [s.test]
    if isinstance(s, gast.For):
        return [s.iter]
    return []


_LAZY = (gast.BoolOp, gast.IfExp, gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp,
         gast.Dict)


def _nexts_in_order(node, names):
    """The `next(name)` calls inside node that Python always evaluates, in the order it evaluates them."""
    if isinstance(node, _LAZY):
        return []
    if _is_next(node) and isinstance(node.args[0], gast.Name) and node.args[0].id in names:
        return [c for a in node.args[1:] for c in _nexts_in_order(a, names)] + [node]
    out = []
    for field in node._fields:
        value = getattr(node, field, None)
        for child in value if isinstance(value, list) else [value]:
            if isinstance(child, gast.AST):
                out.extend(_nexts_in_order(child, names))
    return out


def _replace(s, call, name):
    """Put the Name `name` where `call` is inside statement s; returns the call."""
    for node in astutil.walk(s):
        for field in node._fields:
            value = getattr(node, field, None)
            if value is call:
                setattr(node, field, astutil.name(name))
            elif isinstance(value, list) and any(v is call for v in value):
                setattr(node, field, [astutil.name(name) if v is call else v for v in value])
    return call


def _makes_iterator(uf, value):
    if isinstance(value, gast.GeneratorExp):
        return True
    return isinstance(value, gast.Call) and isinstance(value.func, gast.Name) and value.func.id in _MAKERS and \
        value.func.id not in uf.locals and value.func.id not in uf.globals


def _is_next(n):
    return isinstance(n, gast.Call) and isinstance(n.func, gast.Name) and n.func.id == "next" and \
        not getattr(n.func, "adsrc_next", False) and 1 <= len(n.args) <= 2 and not n.keywords


def _call_helper(call, name):
    call.func = astutil.name(name)
    call.func.adsrc_next = True          # (lowering/calls.py calls adsrc's helper of that name)


def _next_of(s, name):
    """The `next(name[, default])` call that is statement s's value (or right-hand side), else None."""
    value = s.value if isinstance(s, (gast.Assign, gast.Expr, gast.Return, gast.AugAssign)) else None
    if _is_next(value) and isinstance(value.args[0], gast.Name) and value.args[0].id == name:
        return value
    return None


def _as_list(value):
    if isinstance(value, gast.GeneratorExp):
        return gast.ListComp(elt=value.elt, generators=value.generators)
    if isinstance(value, gast.Call) and isinstance(value.func, gast.Name) and value.func.id == "iter" and \
            len(value.args) == 1:
        value = value.args[0]
    return gast.copy_location(gast.Call(func=astutil.name("list"), args=[value], keywords=[]), value)


def _statements(stmts, names):
    out = []
    for s in stmts:
        call = next((c for c in (_next_of(s, n) for n in names) if c is not None), None)
        if call is None:
            out.append(s)
            continue
        name = call.args[0].id
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name):
            # v = next(it): `v, it = next_split(it)`, one statement (a `try` around it sees no partial write)
            _call_helper(call, "next_split" if len(call.args) == 1 else "next_split_or")
            s.targets = [gast.Tuple(elts=[s.targets[0], astutil.name(name, gast.Store())], ctx=gast.Store())]
            out.append(s)
            continue
        _call_helper(call, "next_item" if len(call.args) == 1 else "next_item_or")
        rest = gast.Assign(targets=[astutil.name(name, gast.Store())],
                           value=gast.Subscript(value=astutil.name(name), ctx=gast.Load(),
                                                slice=gast.Slice(lower=astutil.const(1), upper=None, step=None)),
                           type_comment=None)
        out.append(s)
        if not isinstance(s, gast.Return):
            out.append(gast.fix_missing_locations(gast.copy_location(rest, s)))
    return out
