"""Names that only ever hold integers: loop counters and the positions computed from them.

`lst[i]` with such an i (or an integer literal) takes one item of a list or tuple, never a slice of it,
which lets the alias analysis (aliases.py) tell that an item read from a container is one of the objects
the container holds rather than a new container of some of them.

A name qualifies when every statement of the function that binds it gives it an integer: a `for` loop's
target (lowered loops iterate ranges), or an integer literal, another such name, `len(...)`, or `+`, `-`,
`*`, `//`, `%` of those (also as `op=`). Parameters, globals and names a nested function assigns
(`nonlocal`) never qualify.
"""

import gast

from ..ir import nodes as ir
from ..ir.walk import defines, target_names, walk

_INT_OPS = (gast.Add, gast.Sub, gast.Mult, gast.FloorDiv, gast.Mod)
_LOOP, _OTHER = "loop", "other"


def integer_names(fn):
    """The names of ir.Function fn that hold integers wherever they are bound."""
    bindings = {}

    def add(name, how):
        bindings.setdefault(name, []).append(how)
    for s in walk(fn.body):
        if isinstance(s, ir.For):
            for n in target_names(s.target):
                add(n, _LOOP)
        elif isinstance(s, (ir.Const, ir.Copy)) and isinstance(s.target, str):
            add(s.target, s.expr)
        elif isinstance(s, ir.InplaceOp):
            add(s.target, gast.BinOp(left=gast.Name(id=s.target, ctx=gast.Load(), annotation=None,
                                                    type_comment=None), op=s.op, right=s.value))
        else:
            for n in defines(s):
                add(n, _OTHER)
        if isinstance(s, ir.Def):
            for n in s.fn.nonlocals:
                add(n, _OTHER)
    for p in fn.params:
        add(p, _OTHER)
    ints = set(bindings)
    changed = True
    while changed:          # the largest set closed under the rules: a name's values all come from its bindings
        changed = False
        for n in sorted(ints):
            if not all(how == _LOOP or (how is not _OTHER and _is_int(how, ints, "len" in bindings))
                       for how in bindings[n]):
                ints.discard(n)
                changed = True
    return frozenset(ints)


def _is_int(e, ints, len_bound):
    if isinstance(e, gast.Constant):
        return type(e.value) is int
    if isinstance(e, gast.Name):
        return e.id in ints
    if isinstance(e, gast.BinOp):
        return isinstance(e.op, _INT_OPS) and _is_int(e.left, ints, len_bound) and _is_int(e.right, ints, len_bound)
    if isinstance(e, gast.UnaryOp):
        return isinstance(e.op, (gast.USub, gast.UAdd)) and _is_int(e.operand, ints, len_bound)
    if isinstance(e, gast.Call):
        return isinstance(e.func, gast.Name) and e.func.id == "len" and not len_bound and \
            len(e.args) == 1 and not e.keywords
    return False


def is_integer_index(index, ints):
    """Is a subscript's index (a gast node) an integer: one item, not a slice or an array of positions?"""
    return (isinstance(index, gast.Constant) and type(index.value) is int) or \
        (isinstance(index, gast.Name) and index.id in ints)
