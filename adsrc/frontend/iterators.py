"""Iterators bound to names, which adsrc computes when they are made, as lists.

adsrc reads a generator expression, a generator function's call, and the iterators of `map`, `filter`, `zip`,
`enumerate`, `reversed` and `iter` as the lists of their items, computed where they are made. Python computes
the items when they are read, once: a second loop over the same iterator finds it empty, and a variable the
items read that changes in between changes the items. Where a function could see either difference, adsrc
refuses it by name instead of computing something else:

    squares = (v * v for v in x)
    total = sum(squares)
    count = len(list(squares))       # read again: refused (Python gives 0)

An iterator passed straight to its consumer (`sum(v * v for v in x)`) or read once, with nothing it reads
changing before that, is what it is in Python.
"""

import builtins

import gast

from .. import astutil
from .generators import own_nodes, yields

_ITERATOR_BUILTINS = ("map", "filter", "zip", "enumerate", "reversed", "iter")


def check_iterators(uf):
    """Refuse the iterators of uf's own scope that it reads twice, or after changing what they read."""
    nodes = own_nodes(uf.node)
    local = {}
    for n in nodes:
        if isinstance(n, gast.FunctionDef):
            local.setdefault(n.name, []).append(n)
    parents = None
    for s in nodes:
        if not (isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name)):
            continue
        name = s.targets[0].id
        what = _iterator(uf, s.value, local)
        if what is None:
            continue
        if parents is None:
            parents = _parents([uf.node] + nodes)
        stores = [n for n in nodes if isinstance(n, gast.Name) and n.id == name and not isinstance(n.ctx, gast.Load)]
        if len(stores) != 1:
            continue          # rebound elsewhere: adsrc cannot pair reads with this iterator
        reads = [n for n in astutil.walk(uf.node) if isinstance(n, gast.Name) and n.id == name and
                 isinstance(n.ctx, gast.Load)]
        if not reads:
            continue
        advanced = [r for r in reads if _advanced_by_next(r, parents)]
        if advanced:
            raise uf.error(advanced[0], f"`{name}`, {what}, is advanced by `next` inside an expression, which adsrc "
                                        "does not follow.",
                           f"Write `v = next({name})` as a statement of its own (adsrc follows that), or make "
                           f"`{name}` a list and index it.")
        if len(reads) > 1:
            _refuse(uf, reads[1], name, what, "is read a second time; in Python it is empty by then")
        read = reads[0]
        if _in_loop_without(read, s, parents):
            _refuse(uf, read, name, what, "is read in a loop, again on each pass; in Python it is empty after "
                                          "the first")
        changed = _changed_between(nodes, s, read, _read_names(s.value))
        if changed is not None:
            _refuse(uf, read, name, what, f"is read after `{changed}` changes, and Python computes its items "
                                          "when they are read")


def _parents(nodes):
    parents = {}
    for n in nodes:
        for child in astutil.children(n):
            parents[child] = n
    return parents


def _advanced_by_next(read, parents):
    call = parents.get(read)
    return isinstance(call, gast.Call) and isinstance(call.func, gast.Name) and call.func.id == "next" and \
        call.args and call.args[0] is read


def _iterator(uf, value, local):
    """A description of the iterator `value` makes, or None (local: the function's own defs by name)."""
    if isinstance(value, gast.GeneratorExp):
        return "a generator expression"
    if not isinstance(value, gast.Call) or not isinstance(value.func, gast.Name):
        return None
    fname = value.func.id
    local = local.get(fname)
    if local:
        generator = len(local) == 1 and (yields(local[0]) or getattr(local[0], "adsrc_generator", False))
        return "a generator" if generator else None
    if fname in uf.locals:
        return None
    obj = uf.globals.get(fname, getattr(builtins, fname, None))
    if obj is getattr(builtins, fname, None) and fname in _ITERATOR_BUILTINS:
        return f"the iterator of `{fname}(...)`"
    code = getattr(obj, "__code__", None)
    if code is not None and code.co_flags & 0x20:       # CO_GENERATOR
        return "a generator"
    return None


def _read_names(value):
    """The variables `value` reads from the function (a generator expression's own targets are not)."""
    own = {n.id for n in astutil.walk(value) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
    return {n.id for n in astutil.walk(value) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)} - own


def _in_loop_without(node, stmt, parents):
    """Is node inside a loop (of this function) that stmt is not inside?"""
    child, p = node, parents.get(node)
    while p is not None:
        if isinstance(p, gast.While) or isinstance(p, gast.For) and child is not p.iter:
            return not any(n is stmt for n in astutil.walk(p))      # (a for loop reads its iterable once)
        child, p = p, parents.get(p)
    return False


def _changed_between(nodes, stmt, read, names):
    """A name of `names` that a statement after stmt and before the read (by line) assigns or changes in place
    (a method call on it, an item or attribute written), or None."""
    first, last = getattr(stmt, "lineno", 0), getattr(read, "lineno", 0)
    for n in nodes:
        line = getattr(n, "lineno", None)
        if line is None or not first < line <= last:
            continue
        if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load) and n.id in names:
            return n.id
        if isinstance(n, (gast.Subscript, gast.Attribute)) and not isinstance(n.ctx, gast.Load) and \
                isinstance(n.value, gast.Name) and n.value.id in names:
            return n.value.id
        if isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) and isinstance(n.func.value, gast.Name) \
                and n.func.value.id in names and n.func.attr in _CHANGING:
            return n.func.value.id
    return None


_CHANGING = frozenset({"append", "extend", "insert", "pop", "clear", "update", "remove", "sort", "reverse",
                       "setdefault", "popitem", "fill"})


def _refuse(uf, node, name, what, problem):
    raise uf.error(node, f"`{name}`, {what}, {problem}. adsrc computes its items once, where it is made.",
                   f"Make it a list (`{name} = [...]` or `list(...)`) if it is read more than once, or pass it "
                   "straight to what reads it.")
