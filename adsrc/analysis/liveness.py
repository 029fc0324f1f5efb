"""Liveness on structured IR: which names are read after each statement.

`Liveness(fn)` answers `after(stmt)` (names read after the statement,
nested blocks and the next iterations of enclosing loops included) and
`loop_head(loop)` (names live at the top of each iteration). The lowering
uses it to decide what an `If` outputs and what a loop carries, and
`functionalize.py` to decide which names sharing an object changed in place
must be brought up to date.
"""

from ..ir import nodes as ir
from ..ir.walk import expr_reads, own_reads, target_names


def _reads(s):
    """Names a structured statement reads in its enclosing block (mutations read their object)."""
    out = own_reads(s)
    if isinstance(s, ir.For) and s.stop:
        out.add(s.stop)
    return out


def _kills(s):
    """Names a statement rebinds entirely (not in-place changes, which keep the object's other parts)."""
    if isinstance(s, ir.Op):
        return set(target_names(s.target))
    if isinstance(s, ir.Def):
        return {s.name}
    if isinstance(s, ir.MutatingCall) and s.target:
        return {s.target}
    return set()


class Liveness:
    """kinds: the statement classes `after` is asked about (None: every statement); the names live
    after the others are not kept (a copy of the live names for every statement costs time quadratic
    in the length of straight-line code)."""

    def __init__(self, fn, kinds=None):
        self._kinds = kinds
        self._after = {}
        self._head = {}
        live_end = expr_reads(fn.result) if fn.result is not None else set()
        self.entry = self.block(fn.body, set(live_end))

    def after(self, stmt):
        return self._after[id(stmt)]

    def loop_head(self, loop):
        return self._head[id(loop)]

    def block(self, stmts, live):
        """Annotate statements; returns the names live before them."""
        live = set(live)
        kinds = self._kinds
        for s in reversed(stmts):
            if kinds is None or isinstance(s, kinds):
                self._after[id(s)] = frozenset(live)
            live = self.live_in(s, live)
        return live

    def live_in(self, s, live):
        if isinstance(s, ir.If):
            return expr_reads(s.test) | self.block(s.body, live) | self.block(s.orelse, live)
        if isinstance(s, ir.For):
            targets = set(target_names(s.target))
            # the iterated sequence is indexed at every iteration
            head = set(live) | _reads(s)
            while True:
                new = head | (self.block(s.body, head) - targets)
                if new == head:
                    break
                head = new
            self._head[id(s)] = frozenset(head)
            return head | _reads(s)
        if isinstance(s, ir.While):
            head = set(live)
            while True:
                after_test = expr_reads(s.test) | head | self.block(s.body, head)
                new = head | self.block(s.test_body, after_test)
                if new == head:
                    break
                head = new
            self._head[id(s)] = frozenset(head)
            return head
        if isinstance(s, ir.Return):
            return expr_reads(s.value)
        live -= _kills(s)           # in place: `live` is the block's own set
        live |= _reads(s)
        return live
