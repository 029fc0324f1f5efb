"""Remove `break`, `continue` and early `return` from structured IR.

Afterwards a function's body has no `Return` (its value is `fn.result`) and
its loops contain no jumps. Jumps become assignments to flags:

* `return v`: `retval = v; returned = True`, and inside loops also the
  enclosing loops' `broke` and `skip` flags;
* `break`: `broke = True; skip = True` (a `For`'s `stop` flag ends it; a
  `While` tests `not broke`);
* `continue`: `skip = True` (the rest of the iteration is skipped).

Statements after a statement that may jump run under `if not <flag>:`. When
an `if` jumps on one side and not the other, the statements after it move
into the other side instead, so common code needs no flag. Flags nothing
reads are removed.
"""

import gast

from .. import astutil
from ..ir import nodes as ir
from ..ir.walk import expr_reads, own_reads, walk

NONE, MAYBE, ALWAYS = 0, 1, 2


class _Loop:
    def __init__(self, namer):
        self.namer = namer
        self._broke = None
        self._skip = None

    @property
    def broke(self):
        if self._broke is None:
            self._broke = self.namer.fresh("broke")
        return self._broke

    @property
    def skip(self):
        if self._skip is None:
            self._skip = self.namer.fresh("skip")
        return self._skip


def _not(expr):
    return gast.UnaryOp(op=gast.Not(), operand=expr)


class JumpEliminator:
    def __init__(self, namer):
        self.namer = namer
        self.loops = []
        self.flags = set()
        self.returns = 0
        self.sides = {}          # id(If) -> (status of body, status of orelse)
        self._retval = None
        self._returned = None

    @property
    def retval(self):
        if self._retval is None:
            self._retval = self.namer.fresh("retval")
        return self._retval

    @property
    def returned(self):
        if self._returned is None:
            self._returned = self.namer.fresh("returned")
            self.flags.add(self._returned)
        return self._returned

    def set_flag(self, flag, value, like):
        self.flags.add(flag)
        return ir.Const(flag, astutil.const(value), loc=like.loc)

    def function(self, fn):
        body = fn.body
        end = Loc_of(body, fn)
        if not any(isinstance(s, ir.Return) for s in walk(body)):
            body.append(ir.Return(astutil.const(None), loc=end))
        if _returns_only_at_end(body):
            head, _ = self.block(body[:-1])
            fn.body = head
            fn.result = body[-1].value
        else:
            new, status = self.block(body)
            if self._returned is not None:
                new = [self.set_flag(self.returned, False, new[0] if new else body[0])] + new
            if status != ALWAYS:
                new = [ir.Const(self.retval, astutil.const(None), loc=body[0].loc)] + new
            fn.body = new
            fn.result = astutil.name(self.retval)
        fn.body = _drop_unread_flags(fn.body, self.flags, fn.result)
        return fn

    def block(self, stmts):
        out = []
        for i, s in enumerate(stmts):
            new, status = self.statement(s)
            if status == ALWAYS:
                return out + new, ALWAYS
            if status == MAYBE:
                rest = stmts[i + 1:]
                if not rest:
                    return out + new, MAYBE
                pushed = self._push_into_if(new, rest)
                if pushed is not None:
                    return out + pushed[0], pushed[1]
                rest_new, _ = self.block(rest)
                guard = ir.If(_not(self.guard_flag()), rest_new, [], loc=rest[0].loc)
                return out + new + [guard], MAYBE
            out.extend(new)
        return out, NONE

    def guard_flag(self):
        return astutil.name(self.loops[-1].skip if self.loops else self.returned)

    def _push_into_if(self, new, rest):
        """If `new` is one `if` that jumps on exactly one side, move rest to the other side."""
        if len(new) != 1 or not isinstance(new[0], ir.If):
            return None
        node = new[0]
        sides = self.sides.get(id(node))
        if sides not in ((ALWAYS, NONE), (NONE, ALWAYS)):
            return None
        tail, tail_status = self.block(rest)
        if sides == (ALWAYS, NONE):
            node.orelse = node.orelse + tail
        else:
            node.body = node.body + tail
        return [node], ALWAYS if tail_status == ALWAYS else MAYBE

    def statement(self, s):
        if isinstance(s, ir.Return):
            self.returns += 1
            out = [ir.Copy(self.retval, s.value, loc=s.loc) if isinstance(s.value, gast.Name)
                   else ir.Const(self.retval, s.value, loc=s.loc), self.set_flag(self.returned, True, s)]
            for loop in self.loops:
                out += [self.set_flag(loop.broke, True, s), self.set_flag(loop.skip, True, s)]
            return out, ALWAYS
        if isinstance(s, ir.Break):
            loop = self.loops[-1]
            return [self.set_flag(loop.broke, True, s), self.set_flag(loop.skip, True, s)], ALWAYS
        if isinstance(s, ir.Continue):
            return [self.set_flag(self.loops[-1].skip, True, s)], ALWAYS
        if isinstance(s, ir.If):
            s.body, sb = self.block(s.body)
            s.orelse, se = self.block(s.orelse)
            self.sides[id(s)] = (sb, se)
            return [s], sb if sb == se else MAYBE
        if isinstance(s, (ir.For, ir.While)):
            return self.loop(s)
        if isinstance(s, ir.Def):
            JumpEliminator(self.namer).function(s.fn)
        return [s], NONE

    def loop(self, s):
        loop = _Loop(self.namer)
        returns_before = self.returns
        self.loops.append(loop)
        try:
            if isinstance(s, ir.While):
                s.test_body, _ = self.block(s.test_body)
            body, _ = self.block(s.body)
        finally:
            self.loops.pop()
        if loop._skip is not None:
            body = [self.set_flag(loop.skip, False, s)] + body
        out = []
        if loop._broke is not None:
            out.append(self.set_flag(loop.broke, False, s))
            if isinstance(s, ir.For):
                # iterations after a break do nothing (the generated loop stops at once)
                body = [ir.If(_not(astutil.name(loop.broke)), body, [], loc=s.loc)]
                s.stop = loop.broke
            else:
                s.test = gast.BoolOp(op=gast.And(), values=[_not(astutil.name(loop.broke)), s.test])
        s.body = body
        out.append(s)
        status = MAYBE if self.returns > returns_before else NONE
        orelse, s.orelse = s.orelse, []
        if orelse:
            # `else:` runs when the loop ends without `break`
            orelse, ostatus = self.block(orelse)
            if loop._broke is not None:
                out.append(ir.If(_not(astutil.name(loop.broke)), orelse, [], loc=s.loc))
            else:
                out.extend(orelse)
            if ostatus != NONE:
                status = MAYBE
        return out, status


def Loc_of(body, fn):
    return body[-1].loc if body else ir.Loc(fn.lineno)


def _returns_only_at_end(body):
    """True if the only `Return` is the last top-level statement."""
    if not body or not isinstance(body[-1], ir.Return):
        return False
    return not any(isinstance(s, ir.Return) for s in walk(body[:-1]))


def _drop_unread_flags(body, flags, result):
    """Remove assignments to flags that nothing reads (a For's stop flag is read by the loop)."""
    read = set(expr_reads(result)) if result is not None else set()
    for s in walk(body):
        read |= own_reads(s)
        if isinstance(s, ir.For) and s.stop:
            read.add(s.stop)
        if isinstance(s, ir.While):
            read |= expr_reads(s.test)

    def clean(stmts):
        out = []
        for s in stmts:
            if isinstance(s, ir.Const) and s.target in flags and s.target not in read:
                continue
            if isinstance(s, ir.If):
                s.body, s.orelse = clean(s.body), clean(s.orelse)
            elif isinstance(s, (ir.For, ir.While)):
                s.body = clean(s.body)
                if isinstance(s, ir.While):
                    s.test_body = clean(s.test_body)
            out.append(s)
        return out

    return clean(body)


def eliminate_jumps(fn, namer):
    """Rewrite a structured Function (nested defs included) in place."""
    return JumpEliminator(namer).function(fn)
