"""Updates in place, decided on the generated code of a whole function.

An item assignment or append the alias analysis allows in place
(analysis/buffers.py) happens in place unless generated code may see the
object change under it. Outside loops, that is any other read of the base.
In a loop, the names the object passes through (the base, the update's
target, the names copied from them: its *chain*) may be read by the update
itself and by the copies that carry it to the next iteration; after the
loop, the loop's carried names hold the final object and may be read freely:

    for i in range(n):
        out_2 = list_append_inplace(out_1, item)     # the chain: out_1, out_2
        out_1 = out_2                                 # carried to the next iteration
    stack = np.stack(out_1)                           # after the loop: the final list

Any other read in or before the loop (a tape keeping the list of one
iteration, a copy under another name) makes the update copy, and the code says
why. Reads that only take a shape, reads inside constants, and indexing
(whose results are copied when the update is in place: views would change
with it) never do.
"""

import gast

from .. import astutil
from ..ir import nodes as ir
from .state import comment

_LOOPS = (gast.For, gast.While)
_BLOCKS = ("body", "orelse")


def finish_updates(adj, code):
    """Make adj.updates in place where nothing may see the object change (else they copy)."""
    if not adj.updates:
        return
    loads, passive = _loads(adj, code)
    copies = _copies(code)
    for node, s in adj.updates:
        # the base as the generated code names it (copy propagation may have renamed the IR's name)
        arg = node.value.args[0]
        base = arg.id if isinstance(arg, gast.Name) else s.expr.args[0].id
        target = node.targets[0]
        loop = _outermost_loop(code, node)
        chain = _chain(copies, {base, target.id} if isinstance(target, gast.Name) else {base})
        names = chain if loop is not None else {base}
        own = {id(x) for x in astutil.walk(node.value)}
        getitems = {id(n.value.value) for name in names for n in _getitem_values(code, name)}
        free = _free_reads(code, loop, chain, copies) if loop is not None else set()
        others = [n for name in names for n in loads.get(name, []) if id(n) not in own and id(n) not in getitems
                  and id(n) not in passive and id(n) not in free]
        if not others and (_views_compared(adj, code, names) or _held_views_followed(adj, code, names)):
            others = True       # a copy of a view would no longer be part of the object: the test would change
        if others:
            _comment_before(code, node, f"`{base}` is copied, not changed in place: its old value is needed "
                                        "later (copy-on-write)")
            continue
        node.value.func = adj.h("index_update_inplace" if isinstance(s, ir.Update) else "list_append_inplace")
        for name in names:
            for sub in _getitem_values(code, name):
                sub.value = adj.hcall("snapshot", sub.value)     # a view of the array would change with it


def _loads(adj, code):
    """name -> its Load nodes (shape reads left out), and ids of loads inside constants."""
    loads, passive = {}, set()

    def visit(node, inside):
        inside = inside or id(node) in adj.passive_reads
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load) and id(node) not in adj.shape_reads:
            loads.setdefault(node.id, []).append(node)
            if inside:
                passive.add(id(node))
        for child in astutil.children(node):
            visit(child, inside)
    for stmt in code:
        visit(stmt, False)
    return loads, passive


def _copies(code):
    """[(target, value Name node)] of every `a = b` between names in the code (and each pair of
    `a, b = c, d`: how a loop carries several names to its next iteration)."""
    out = []
    for n in astutil.walk(gast.Module(body=list(code), type_ignores=[])):
        if isinstance(n, gast.Assign):
            out += _name_pairs(n)
    return out


def _name_pairs(node):
    """[(target, value Name node)] of an assignment `a = b` or `a, b = c, d` of names only, else []."""
    if len(node.targets) != 1:
        return []
    target, value = node.targets[0], node.value
    if isinstance(target, gast.Name) and isinstance(value, gast.Name):
        return [(target.id, value)]
    if isinstance(target, gast.Tuple) and isinstance(value, gast.Tuple) and len(target.elts) == len(value.elts) \
            and all(isinstance(e, gast.Name) for e in target.elts + value.elts):
        return [(t.id, v) for t, v in zip(target.elts, value.elts)]
    return []


def _chain(copies, names):
    """The names an object passes through by plain copies, from the given names (both ways)."""
    names = set(names)
    grew = True
    while grew:
        grew = False
        for target, value in copies:
            if (target in names) != (value.id in names):
                names |= {target, value.id}
                grew = True
    return names


def _free_reads(code, loop, chain, copies):
    """ids of chain reads that cannot see the object change: the copies within the chain, and reads
    after the loop of the names the loop carries (bound by copies at its body's end)."""
    free = {id(value) for target, value in copies if target in chain and value.id in chain}
    carried = {target for st in loop.body if isinstance(st, gast.Assign) for target, value in _name_pairs(st)
               if target in chain and value.id in chain}
    after = code[next(i for i, st in enumerate(code) if st is loop) + 1:]
    for st in after:
        for n in astutil.walk(st):
            if isinstance(n, gast.Name) and n.id in carried:
                if not isinstance(n.ctx, gast.Load):
                    return free          # bound again: later reads are of something else
                free.add(id(n))
    return free


def _outermost_loop(code, node):
    """The loop of the code's top-level block that holds node, or None."""
    for st in code:
        if isinstance(st, _LOOPS) and any(n is node for n in astutil.walk(st)):
            return st
    return None


# helpers that ask whether an object is part of another (sharing.py): they must see views, not copies
_ALIAS_TESTS = ("part_along", "view_along", "slot_along", "same_part")


def _views_compared(adj, code, names):
    """Do the alias tests of the code read a view taken from one of names?"""
    views = {n.targets[0].id for name in names for n in _getitem_values(code, name)
             if isinstance(n.targets[0], gast.Name)}
    if not views:
        return False
    for n in astutil.walk(gast.Module(body=list(code), type_ignores=[])):
        if isinstance(n, gast.Call) and isinstance(n.func, gast.Name) and \
                adj.namer.helpers.get(n.func.id) in _ALIAS_TESTS and \
                any(isinstance(a, gast.Name) and a.id in views for a in n.args):
            return True
    return False


def _held_views_followed(adj, code, names):
    """Are views taken of one of names (which an update in place would copy) while the code takes the views
    that containers hold again from a changed array (replace_part, rules/held_parts.py: it looks for the views
    by their memory, which a copy does not share)?"""
    if not any(_getitem_values(code, name) for name in names):
        return False
    return any(isinstance(n, gast.Call) and isinstance(n.func, gast.Name) and
               adj.namer.helpers.get(n.func.id) == "replace_part"
               for n in astutil.walk(gast.Module(body=list(code), type_ignores=[])))


def _getitem_values(code, base):
    out = []
    for n in astutil.walk(gast.Module(body=list(code), type_ignores=[])):
        if isinstance(n, gast.Assign) and isinstance(n.value, gast.Subscript) and \
                isinstance(n.value.value, gast.Name) and n.value.value.id == base:
            out.append(n)
    return out


def _comment_before(code, node, text):
    """Insert the comment `# text` before the statement node, wherever it is in the generated code."""
    def search(stmts):
        for i, st in enumerate(stmts):
            if st is node:
                c = comment(text)
                c.adsrc_line = getattr(node, "adsrc_line", None)
                stmts.insert(i, c)
                return True
            for field in _BLOCKS:
                inner = getattr(st, field, None)
                if isinstance(inner, list) and search(inner):
                    return True
        return False
    search(code)
