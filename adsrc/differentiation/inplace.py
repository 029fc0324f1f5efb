"""Updates in place, decided on the generated code of a whole function.

An item assignment or append the alias analysis allows in place
(analysis/buffers.py) happens in place unless some generated code reads the
old version of its base afterwards: a read of the base's name reachable from
the update before the name is bound again (in a loop, also around the back
edge to the update). Reads that are not such are the loop's later iterations
and the code after a loop, which see the new version under the same name:

    for i in range(n):
        out_2 = list_append_inplace(out_1, item)     # out_1's old value: read by nobody
        out_1 = out_2                                 # bound again
    stack = np.stack(out_1)                           # the new version

Reads that only take a shape, reads inside constants, and indexing (whose
results are copied when the update is in place: views would change with it)
do not need the old version either. Otherwise the update copies, and the code
says why.
"""

import gast

from ..ir import nodes as ir
from .state import comment

_LOOPS = (gast.For, gast.While)
_BLOCKS = ("body", "orelse")


def finish_updates(adj, code):
    """Make adj.updates in place where no code reads the old value later (else they copy)."""
    loads, passive = _loads(adj, code)
    for node, s in adj.updates:
        base = s.expr.args[0].id
        own = {id(x) for x in gast.walk(node.value)}
        getitems = {id(n.value.value) for n in _getitem_values(code, base)}
        later = _later_loads(code, node, base)
        others = [n for n in loads.get(base, []) if id(n) not in own and id(n) not in getitems
                  and id(n) not in passive and (later is None or id(n) in later)]
        if others:
            _comment_before(code, node, f"`{base}` is copied, not changed in place: its old value is needed "
                                        "later (copy-on-write)")
            continue
        node.value.func = adj.h("index_update_inplace" if isinstance(s, ir.Update) else "list_append_inplace")
        for sub in _getitem_values(code, base):
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
        for child in gast.iter_child_nodes(node):
            visit(child, inside)
    for stmt in code:
        visit(stmt, False)
    return loads, passive


def _later_loads(code, node, base):
    """ids of the loads of `base` that may see its value from before the statement `node`, or None
    (all of them) where node is not in plain blocks, loops and branches."""
    path = _path(code, node)
    if path is None:
        return None
    found = set()
    for block, i, owner in reversed(path):
        killed = _scan(block[i + 1:], base, found)
        if killed:
            return found
        if isinstance(owner, _LOOPS):
            if isinstance(owner, gast.While):
                found.update(_name_loads(owner.test, base))
            _scan(block[:i], base, found)         # the next iteration, up to the update
        elif owner is not None and not isinstance(owner, gast.If):
            return None
    return found


def _scan(stmts, base, found):
    """Add the loads of base in stmts to found, up to a plain assignment that binds base; killed?"""
    for st in stmts:
        found.update(_name_loads(st, base))
        if isinstance(st, gast.Assign) and any(base in _bound(t) for t in st.targets):
            return True
    return False


def _bound(target):
    if isinstance(target, gast.Name):
        return {target.id}
    if isinstance(target, (gast.Tuple, gast.List)):
        return set().union(*[_bound(e) for e in target.elts]) if target.elts else set()
    return set()


def _name_loads(node, base):
    return {id(n) for n in gast.walk(node) if isinstance(n, gast.Name) and n.id == base
            and isinstance(n.ctx, gast.Load)}


def _path(stmts, node, owner=None):
    """[(block, index, owner statement)] from the outermost block to the one holding node, or None.

    A loop's else block runs once, after the loop: its owner is given as a branch."""
    for i, st in enumerate(stmts):
        if st is node:
            return [(stmts, i, owner)]
        for field in _BLOCKS + ("finalbody",):
            inner = getattr(st, field, None)
            if isinstance(inner, list):
                sub = _path(inner, node, _ONCE if isinstance(st, _LOOPS) and field == "orelse" else st)
                if sub is not None:
                    return [(stmts, i, owner)] + sub
    return None


_ONCE = gast.If(test=None, body=[], orelse=[])


def _getitem_values(code, base):
    out = []
    for n in gast.walk(gast.Module(body=list(code), type_ignores=[])):
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
