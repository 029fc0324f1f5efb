"""`with np.errstate(divide="raise"):` in a differentiated function: the error state applies to the block.

A block whose settings only silence or show warnings ("ignore", "warn", "print", "log") runs as written:
the state changes nothing the function computes. One that makes NumPy raise ("raise", "call") changes
what runs (a `try` around it takes another branch), so generated code sets the state for the block:
`errstate_push({...})` before it and `errstate_pop()` after it, and before each `return`, `break` or
`continue` that leaves it. If an exception leaves the generated code, the gradient's call puts the error
state back as it found it (runtime.errstate_reset). The backward pass runs outside the block, as
derivative code would in Python.
"""

import gast

from .. import astutil
from .. import rules as rules_mod
from ..ir import nodes as ir

_RAISING = ("raise", "call")


class ErrStates:
    """Mixin of the Normalizer: the state of `with np.errstate(...)` blocks that make NumPy raise."""

    def errstate_settings(self, ctx):
        """The settings dict of `np.errstate(**settings)` if they make NumPy raise and are known when
        transforming, else None (the block runs as written)."""
        if ctx.args or not ctx.keywords:
            return None
        settings = {}
        for k in ctx.keywords:
            value = k.value.value if isinstance(k.value, gast.Constant) else self.static(k.value)
            if k.arg is None or value is rules_mod.NOT_STATIC or not isinstance(value, (str, type(None))):
                return None
            settings[k.arg] = value
        return settings if any(v in _RAISING for v in settings.values()) else None

    def errstate_block(self, s, settings):
        """The block between errstate_push(settings) and errstate_pop(), also popped before each jump out.
        Its statements may raise, so none of them is dead: the block is the body of a `try` that catches
        nothing (ir.If.catches, a class no code raises)."""
        push = astutil.call(self.bind("errstate_push", _runtime().errstate_push), [_literal(settings)])
        self.emit(ir.Effect(push), s)
        def pop():
            return gast.copy_location(gast.Expr(value=self.pop_call()), s)
        body = exits_before_jumps(s.body, [(pop, False)] + with_exits(s), self.temp)
        tried = self.temp("tried")
        self.emit(ir.Const(tried, astutil.const(True)), s)
        block = self.block(body)
        catches = astutil.name(self.bind("NothingRaised", NothingRaised))
        self.emit(ir.If(astutil.name(tried), block, [], catches=catches), s)
        self.emit(ir.Effect(self.pop_call()), s)

    def pop_call(self):
        return astutil.call(self.bind("errstate_pop", _runtime().errstate_pop), [])


class NothingRaised(Exception):
    """The exception a `with np.errstate(...)` block's `try` catches: none is ever raised."""


def _runtime():
    from .. import runtime
    return runtime


def _literal(settings):
    return gast.Dict(keys=[astutil.const(k) for k in settings], values=[astutil.const(v) for v in settings.values()])


def jumps_preceded(s, exits, temp):
    """s with the statements that leave blocks before each jump out of them; a list of statements.

    exits: (before, in_loop) per block s is in, innermost first; before() makes the statement that leaves it
    (errstate_pop() here, a context's exit in contexts.py), in_loop says a loop inside the block holds s: a
    `break` or `continue` then stays in the block. Before a `return` (its value computed first, into
    temp("returned")) every block is left. A `with` statement inside is lowered later: it keeps the exits,
    to put its own first (`with_exits`)."""
    if isinstance(s, gast.Return):
        leave = [before() for before, _ in exits]
        if s.value is None:
            return leave + [s]
        tmp = temp("returned")
        keep = gast.copy_location(gast.Assign(targets=[gast.Name(id=tmp, ctx=gast.Store(), annotation=None,
                                                                 type_comment=None)],
                                              value=s.value, type_comment=None), s)
        return [keep] + leave + [gast.copy_location(gast.Return(value=astutil.name(tmp)), s)]
    if isinstance(s, (gast.Break, gast.Continue)):
        return [before() for before, in_loop in exits if not in_loop] + [s]
    if isinstance(s, (gast.FunctionDef, gast.ClassDef)):
        return [s]
    if isinstance(s, gast.With):
        s.adsrc_exits = list(exits) + with_exits(s)
        return [s]
    looped = [(before, True) for before, _ in exits] if isinstance(s, (gast.For, gast.While)) else exits
    for field in ("body", "orelse", "finalbody"):
        block = getattr(s, field, None)
        if isinstance(block, list) and block and isinstance(block[0], gast.stmt):
            inside = exits if field == "orelse" and isinstance(s, (gast.For, gast.While)) else looped
            setattr(s, field, [x for st in block for x in jumps_preceded(st, inside, temp)])
    for h in getattr(s, "handlers", ()):
        h.body = [x for st in h.body for x in jumps_preceded(st, exits, temp)]
    return [s]


def with_exits(s):
    """The exits of the blocks around the `with` statement s (jumps_preceded), innermost first."""
    return getattr(s, "adsrc_exits", [])


def exits_before_jumps(body, exits, temp):
    return [x for st in body for x in jumps_preceded(st, exits, temp)] if exits else body
