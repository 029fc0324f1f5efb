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

import copy

import gast

from .. import astutil
from ..analysis.liveness import Liveness
from ..ir import nodes as ir
from ..ir.walk import assigned, target_names


class Lowerer:
    def __init__(self, fn, namer):
        self.fn = fn
        self.namer = namer
        self.live = Liveness(fn)

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
        return ir.Cond(s.test, branches[0], branches[1], outs, loc=s.loc)

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
        """(statements before, xs, item name, prelude) for `for target in iteration`."""
        it, target, loc = s.iter, s.target, s.loc
        if isinstance(it, ir.RangeIter) and isinstance(target, str) and target not in carry:
            return [], astutil.call("range", copy.deepcopy(it.args)), target, []
        index = self.namer.fresh("i")
        prelude = []
        self.item(it, astutil.name(index), target, prelude, loc)
        return [], astutil.call("range", [self.length(it)]), index, prelude

    def length(self, it):
        if isinstance(it, ir.RangeIter):
            return astutil.call("len", [astutil.call("range", copy.deepcopy(it.args))])
        if isinstance(it, ir.SeqIter):
            return astutil.call("len", [copy.deepcopy(it.seq)])
        if isinstance(it, (ir.EnumerateIter, ir.ReversedIter)):
            return self.length(it.inner)
        lengths = [self.length(i) for i in it.inners]
        return lengths[0] if len(lengths) == 1 else astutil.call("min", lengths)

    def item(self, it, index, target, out, loc):
        """Statements binding target (a name or nested tuple of names) to the item at position `index`."""
        parts = None
        if isinstance(it, ir.EnumerateIter):
            counter = index
            if it.start is not None:
                counter = gast.BinOp(left=copy.deepcopy(index), op=gast.Add(), right=copy.deepcopy(it.start))
            parts = [(counter, None), (None, it.inner)]
        elif isinstance(it, ir.ZipIter):
            parts = [(None, inner) for inner in it.inners]
        if parts is not None:
            if isinstance(target, tuple) and len(target) == len(parts):
                for t, (value, inner) in zip(target, parts):
                    if inner is None:
                        out.append(ir.Copy(t, value, loc=loc) if isinstance(value, gast.Name)
                                   else ir.Const(t, value, loc=loc))
                    else:
                        self.item(inner, index, t, out, loc)
                return
            names = [self.namer.fresh("item") for _ in parts]
            self.item(it, index, tuple(names), out, loc)
            self.bind(target, ir.Pack, astutil.tuple_([astutil.name(n) for n in names]), out, loc)
            return
        if isinstance(target, tuple):
            tmp = self.namer.fresh("item")
            self.item(it, index, tmp, out, loc)
            out.append(ir.Copy(target, astutil.name(tmp), loc=loc))
            return
        if isinstance(it, ir.RangeIter):
            out.append(ir.Const(target, gast.Subscript(value=astutil.call("range", copy.deepcopy(it.args)),
                                                       slice=copy.deepcopy(index), ctx=gast.Load()), loc=loc))
        elif isinstance(it, ir.SeqIter):
            out.append(ir.GetItem(target, gast.Subscript(value=copy.deepcopy(it.seq), slice=copy.deepcopy(index),
                                                         ctx=gast.Load()), loc=loc))
        else:      # reversed: position len - 1 - index of the inner iteration
            r = self.namer.fresh("rev")
            expr = gast.BinOp(left=gast.BinOp(left=self.length(it.inner), op=gast.Sub(), right=astutil.const(1)),
                              op=gast.Sub(), right=copy.deepcopy(index))
            out.append(ir.Const(r, expr, loc=loc))
            self.item(it.inner, astutil.name(r), target, out, loc)

    def bind(self, target, cls, value, out, loc):
        if isinstance(target, tuple):
            tmp = self.namer.fresh("item")
            out.append(cls(tmp, value, loc=loc))
            out.append(ir.Copy(target, astutil.name(tmp), loc=loc))
        else:
            out.append(cls(target, value, loc=loc))

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
