"""Lower structured control flow: `If` -> Cond, `For` -> Scan, `While` -> WhileLoop.

Input: a functional (jump-free, change-free) structured Function. An `If`
outputs the names either branch assigns that are read afterwards; a loop
carries the names its body assigns that are live at the top of an iteration
(or after the loop). A branch or loop that does not assign such a name passes
on its current value, or UNDEFINED when it has none yet.

A `For` becomes a Scan over `range(...)`: over the range itself when it
iterates a `range` into a name, otherwise over positions, with the loop
target bound by indexing (`x = xs[i]`, `i, x = i, xs[i]` for `enumerate`...).
"""


import gast

from .. import astutil
from ..analysis.liveness import Liveness
from ..ir import nodes as ir
from ..ir.walk import assigned, target_names


class Lowerer:
    def __init__(self, fn, namer):
        self.fn = fn
        self.namer = namer
        self.live = Liveness(fn, (ir.If,))      # `after` is asked of branches only

    def undefined(self):
        return astutil.name(self.namer.helper("UNDEFINED"))

    def run(self):
        self.fn.body = self.block(self.fn.body, set(self.fn.params))
        return self.fn

    def block(self, stmts, defined):
        out = []
        for s in stmts:
            out.extend(self.stmt(s, defined))
        return out

    def stmt(self, s, defined):
        if isinstance(s, ir.If):
            return [self.cond(s, defined)]
        if isinstance(s, ir.For):
            return self.scan(s, defined)
        if isinstance(s, ir.While):
            return [self.while_loop(s, defined)]
        if isinstance(s, ir.Def):
            Lowerer(s.fn, self.namer).run()
        defined.update(_defines(s))
        return [s]

    def value(self, name, defined):
        return astutil.name(name) if name in defined else self.undefined()

    def cond(self, s, defined):
        live = self.live.after(s)
        outs = [n for n in assigned(s.body + s.orelse) if n in live]
        branches, after = [], None
        for stmts in (s.body, s.orelse):
            d = set(defined)
            body = self.block(stmts, d)
            branches.append(ir.Branch(body, [self.value(n, d) for n in outs]))
            after = d if after is None else after & d
        defined.update(after | set(outs))
        return ir.Cond(s.test, branches[0], branches[1], outs, s.catches, s.caught, loc=s.loc)

    def scan(self, s, defined):
        head = self.live.loop_head(s)
        targets = target_names(s.target)
        carry = list(dict.fromkeys(n for n in assigned(s.body) + targets if n in head))
        pre, xs, item, prelude = self.iteration(s, carry)
        init = [self.value(n, defined) for n in carry]
        inner = set(defined) | set(carry) | ({item} if item else set())
        body = self.block(prelude + s.body, inner)
        stop = carry.index(s.stop) if s.stop in carry else None
        loop = ir.Scan(carry, init, item, xs, body, [astutil.name(n) for n in carry], list(carry), stop, loc=s.loc)
        defined.update(carry)
        return pre + [loop]

    def iteration(self, s, carry):
        """(statements before, xs, item name, prelude) for `for target in range(...)`."""
        args, target, loc = s.iter.args, s.target, s.loc
        if target not in carry:
            return [], astutil.call("range", astutil.clone(args)), target, []
        # the loop target is read after the loop: bind it from a separate index
        index = self.namer.fresh("i")
        value = gast.Subscript(value=astutil.call("range", astutil.clone(args)), slice=astutil.name(index),
                               ctx=gast.Load())
        return [], astutil.call("range", [astutil.call("len", [astutil.call("range", astutil.clone(args))])]), \
            index, [ir.Const(target, value, loc=loc)]

    def while_loop(self, s, defined):
        head = self.live.loop_head(s)
        carry = [n for n in assigned(s.test_body + s.body) if n in head]
        init = [self.value(n, defined) for n in carry]
        inner = set(defined) | set(carry)
        test_body = self.block(s.test_body, inner)
        body = self.block(s.body, inner)
        defined.update(carry)
        return ir.WhileLoop(carry, init, test_body, s.test, body, [astutil.name(n) for n in carry], list(carry),
                            loc=s.loc)


def _defines(s):
    from ..ir.walk import defines
    return defines(s)


def lower_structure(fn, namer):
    """Lower a functional structured Function's control flow in place."""
    return Lowerer(fn, namer).run()
