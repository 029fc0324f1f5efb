"""Remove `break`, `continue` and early `return`.

After this pass a function has a single `return` at the end of its body and
its loops contain no jumps. Jumps become assignments to flags:

* `return v`: `retval = v; returned = True`, and inside loops also the
  enclosing loops' `broke` and `skip` flags;
* `break`: `broke = True; skip = True` (`broke` ends the loop);
* `continue`: `skip = True` (the rest of the iteration is skipped).

Statements after a statement that may jump run under `if not <flag>:`. When
an `if` jumps on one side and not the other, the statements that follow it
move into the other side instead, so common code needs no flag at all. A
loop that may break is marked with `node.break_flag`; flags that nothing
reads are removed at the end.
"""

import gast

from .. import astutil

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


class JumpEliminator:
    def __init__(self, namer):
        self.namer = namer
        self.loops = []
        self.flags = set()       # every flag name created
        self.returns = 0         # return statements seen so far
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

    # -- entry -------------------------------------------------------------------------
    def function(self, fdef):
        body = fdef.body
        if not any(isinstance(n, gast.Return) for s in body for n in _walk_no_defs(s)):
            # falls off the end: make that an explicit `return None`
            body.append(astutil.located(gast.Return(value=astutil.const(None)), body[-1] if body else fdef))
        if _returns_only_at_end(body):
            # no early return: only loops may need their break/continue removed
            head, _ = self.block(body[:-1])
            fdef.body = _drop_unread_flags(head + body[-1:], self.flags)
            return fdef
        new, status = self.block(body)
        if self._returned is not None:
            new = [self._set(self.returned, False, fdef)] + new
        if status != ALWAYS:
            new = [astutil.located(astutil.assign(self.retval, astutil.const(None)), fdef)] + new
        final = astutil.located(gast.Return(value=astutil.name(self.retval)), body[-1] if body else fdef)
        fdef.body = _drop_unread_flags(new + [final], self.flags)
        return fdef

    # -- blocks ------------------------------------------------------------------------
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
                guard = astutil.located(gast.If(test=_not(self.guard_flag()), body=rest_new, orelse=[]), rest[0])
                return out + new + [guard], MAYBE
            out.extend(new)
        return out, NONE

    def guard_flag(self):
        return astutil.name(self.loops[-1].skip if self.loops else self.returned)

    def _push_into_if(self, new, rest):
        """If `new` is one `if` that jumps on exactly one side, move rest to the other."""
        if len(new) != 1 or not isinstance(new[0], gast.If):
            return None
        node = new[0]
        sides = (getattr(node, "jump_body", None), getattr(node, "jump_else", None))
        if sides not in ((ALWAYS, NONE), (NONE, ALWAYS)):
            return None
        tail, tail_status = self.block(rest)
        if sides == (ALWAYS, NONE):
            node.orelse = node.orelse + tail
        else:
            node.body = node.body + tail
        return [node], ALWAYS if tail_status == ALWAYS else MAYBE

    # -- statements --------------------------------------------------------------------
    def _set(self, flag, value, like):
        self.flags.add(flag)
        return astutil.located(astutil.assign(flag, astutil.const(value)), like)

    def statement(self, s):
        if isinstance(s, gast.Return):
            self.returns += 1
            out = [astutil.located(astutil.assign(self.retval, s.value), s), self._set(self.returned, True, s)]
            for loop in self.loops:
                out += [self._set(loop.broke, True, s), self._set(loop.skip, True, s)]
            return out, ALWAYS
        if isinstance(s, gast.Break):
            loop = self.loops[-1]
            return [self._set(loop.broke, True, s), self._set(loop.skip, True, s)], ALWAYS
        if isinstance(s, gast.Continue):
            return [self._set(self.loops[-1].skip, True, s)], ALWAYS
        if isinstance(s, gast.If):
            s.body, sb = self.block(s.body)
            s.orelse, se = self.block(s.orelse)
            s.jump_body, s.jump_else = sb, se
            if sb == se:
                return [s], sb
            return [s], MAYBE
        if isinstance(s, (gast.For, gast.While)):
            return self.loop(s)
        return [s], NONE

    def loop(self, s):
        loop = _Loop(self.namer)
        returns_before = self.returns
        self.loops.append(loop)
        try:
            body, _ = self.block(s.body)
        finally:
            self.loops.pop()
        if loop._skip is not None:
            body = [self._set(loop.skip, False, s)] + body
        if loop._broke is not None:
            if isinstance(s, gast.For):
                # iterations after a break do nothing (the emitted loop stops at once)
                body = [astutil.located(gast.If(test=_not(astutil.name(loop.broke)), body=body, orelse=[]), s)]
            else:
                s.test = gast.BoolOp(op=gast.And(), values=[_not(astutil.name(loop.broke)), s.test])
        s.body = body
        orelse, s.orelse = s.orelse, []
        out = []
        if loop._broke is not None:
            out.append(self._set(loop.broke, False, s))
            s.break_flag = loop.broke
        out.append(s)
        status = MAYBE if self.returns > returns_before else NONE
        if orelse:
            orelse_new, ostatus = self.block(orelse)
            if loop._broke is not None:
                out.append(astutil.located(gast.If(test=_not(astutil.name(loop.broke)), body=orelse_new, orelse=[]), s))
            else:
                out.extend(orelse_new)
            if ostatus != NONE:
                status = MAYBE
        return out, status


def _not(expr):
    return gast.UnaryOp(op=gast.Not(), operand=expr)


def _returns_only_at_end(body):
    """True if the only `return` is the last top-level statement."""
    for i, s in enumerate(body):
        if isinstance(s, gast.Return):
            if i != len(body) - 1:
                return False
            continue
        for n in _walk_no_defs(s):
            if isinstance(n, gast.Return):
                return False
    return bool(body) and isinstance(body[-1], gast.Return)


def _walk_no_defs(node):
    if isinstance(node, gast.FunctionDef):
        return
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        for c in gast.iter_child_nodes(n):
            if not isinstance(c, gast.FunctionDef):
                stack.append(c)


def _drop_unread_flags(body, flags):
    """Remove assignments to flags that nothing reads (a loop's break flag is read by the loop)."""
    read = set()
    for s in body:
        for n in gast.walk(s):
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load):
                read.add(n.id)
            flag = getattr(n, "break_flag", None)
            if flag:
                read.add(flag)

    def clean(stmts):
        out = []
        for s in stmts:
            if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) \
                    and s.targets[0].id in flags and s.targets[0].id not in read:
                continue
            if not isinstance(s, gast.FunctionDef):
                for field in ("body", "orelse"):
                    if isinstance(getattr(s, field, None), list):
                        setattr(s, field, clean(getattr(s, field)))
            out.append(s)
        return out

    return clean(body)


def eliminate_jumps(fdef, namer):
    """Rewrite fdef (a normalized FunctionDef, nested defs included) in place."""
    for n in list(gast.walk(fdef)):
        if isinstance(n, gast.FunctionDef):
            JumpEliminator(namer).function(n)
    return fdef
