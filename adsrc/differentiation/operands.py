"""Operators (and `v[i]`) differentiated as arithmetic, on values whose kind the abstract values do not know.

`a + b` is differentiated with the rule for numbers and arrays unless the lowering saw that `a`
is an object of a user class with its own `__add__` (then it calls that method). When adsrc
cannot tell what a differentiated operand is (a name bound again to an operator's result, a
value from code it cannot see), the generated code checks it when it runs (`check_operand` in
runtime.py): an object whose class defines the operator in Python is refused, never
differentiated as a number. Differentiated arguments' kinds are known, so the check is rare in
numeric code; numba kernels, which hold only numbers and arrays, never need it.
"""

import re

import gast

from .. import astutil
from ..ir import nodes as ir

_KNOWN_KINDS = ("array", "scalar", "container", "bottom")


def operand_checks(d, s, differentiated):
    """The `check_operand(o, '+', 'o')` statements the operation s needs (d: the Adjoint or Forward
    differentiator; differentiated(name node): does that operand carry a derivative?)."""
    if d.ctx.dense:
        return []
    if isinstance(s, ir.GetItem) and isinstance(s.expr.value, gast.Name):     # v[i]: v's own __getitem__?
        operands, symbol = [s.expr.value], "[]"
    elif isinstance(s, ir.Update) and s.expr.args and isinstance(s.expr.args[0], gast.Name):    # v[i] = x
        operands, symbol = [s.expr.args[0]], "[]="
        differentiated = _always            # (the update carries a derivative: the value written does, if not v)
    elif isinstance(s, ir.Apply) and isinstance(s.expr, (gast.BinOp, gast.UnaryOp)):
        e = s.expr
        operands = [e.operand] if isinstance(e, gast.UnaryOp) else [e.left, e.right]
        symbol = s.rule.name.replace("`", "")         # "+", "unary -"
    else:
        return []
    return [astutil.expr_stmt(astutil.call(astutil.name(d.namer.helper("check_operand")),
                                           [astutil.name(a.id), astutil.const(symbol),
                                            astutil.const(user_name(d.uf, a.id))]))
            for a in operands if isinstance(a, gast.Name) and d.values[a.id].kind not in _KNOWN_KINDS
            and differentiated(a)]


def _always(_):
    return True


def user_name(uf, name):
    """The user's name for a generated one (`o_1`, a later value of `o`), for messages."""
    stem = re.sub(r"_\d+$", "", name)
    return stem if name not in uf.locals and stem in uf.locals else name


def named_by_user(uf, name):
    """user_name, also for the names of a function inlined into uf (`scale_2`, a factory's parameter)."""
    stem = re.sub(r"_\d+$", "", name)
    written = astutil.all_names(uf.node)       # (gast's parameters are names too)
    return stem if name not in written and stem in written | uf.locals else user_name(uf, name)
