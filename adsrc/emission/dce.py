"""Dead code elimination on generated code.

A gradient needs only part of the forward computation: the values the
backward pass reads. `eliminate(stmts)` removes assignments whose results
nothing reads, including inside loops (a carried value no iteration needs is
dropped with its loop update; of a loop's `h_1, loss_1 = h_2, loss_2`, only the
pairs whose names are read stay). Only statements known to be pure are removed:
assignments without calls, and calls marked `adsrc_pure` by the
differentiator (derivative-rule operations). Everything else is kept.

One elimination is a `_Pass`: it remembers the names each expression reads
and, for each loop and set of names live after it, the names live at the top
of its iterations (a fixpoint over its body), until the loop's body changes.
Without that, every pass of an outer loop's fixpoint recomputed the inner
loops' fixpoints, and the cost doubled with each level of nesting.
"""

import gast

from .. import astutil


def _stores(target):
    return {n.id for n in astutil.walk(target) if isinstance(n, gast.Name)}


def _pure_value(s):
    if getattr(s, "adsrc_pure", False):
        return True
    return not any(isinstance(n, (gast.Call, gast.Yield, gast.Await)) for n in astutil.walk(s.value))


def _no_call(e):
    return not any(isinstance(n, gast.Call) for n in astutil.walk(e))


def _plain_assign(s):
    return isinstance(s, gast.Assign) and all(isinstance(t, (gast.Name, gast.Tuple)) for t in s.targets)


def _name_pairs(s):
    """[(target Name, value)] of `a, b = x, y` (distinct names, as many values, none starred), else None: how a
    loop carries several names to its next iteration, each pair on its own."""
    if not (isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], gast.Tuple)
            and isinstance(s.value, gast.Tuple)):
        return None
    targets, values = s.targets[0].elts, s.value.elts
    if len(targets) != len(values) or not all(isinstance(t, gast.Name) for t in targets) or \
            len({t.id for t in targets}) != len(targets) or any(isinstance(v, gast.Starred) for v in values):
        return None
    return list(zip(targets, values))


def _kept_pairs(s, pairs, live):
    """s without the pairs whose names nothing reads (and whose values have no calls), or s itself."""
    kept = [(t, v) for t, v in pairs if t.id in live or not _no_call(v)]
    if len(kept) == len(pairs):
        return s
    if len(kept) == 1:
        new = gast.Assign(targets=[kept[0][0]], value=kept[0][1])
    else:
        new = gast.Assign(targets=[gast.Tuple(elts=[t for t, _ in kept], ctx=gast.Store())],
                          value=gast.Tuple(elts=[v for _, v in kept], ctx=gast.Load()))
    for k, v in vars(s).items():        # the user's line it comes from, and the like
        if k not in ("targets", "value"):
            setattr(new, k, v)
    return new


class _Pass:
    """Liveness facts of one elimination (statements other than loop bodies do not change during it)."""

    def __init__(self):
        self.facts = {}     # (what, id(node)) -> (node, fact): node kept so that its id stays its own
        self.heads = {}     # id(loop) -> (loop, {names live after it: names live at its head})

    def _fact(self, what, node, compute):
        key = (what, id(node))
        hit = self.facts.get(key)
        if hit is None:
            hit = self.facts[key] = (node, compute(node))
        return hit[1]

    def loads(self, node):
        return self._fact("loads", node, lambda n: frozenset(astutil.names_loaded(n)))

    def stored(self, s):
        """Names an assignment's targets store (s a plain assignment)."""
        return self._fact("stores", s, lambda s: frozenset().union(*(_stores(t) for t in s.targets)))

    def dead(self, s, live):
        """Is s an assignment without effects whose result nothing reads?"""
        if _plain_assign(s):
            return not (self.stored(s) & live) and self._fact("pure", s, _pure_value)
        if isinstance(s, gast.AugAssign) and isinstance(s.target, gast.Name):
            return s.target.id not in live and self._fact("nocall", s.value, _no_call)
        # anything else is kept, a change in place of a subscript too: another name may hold the object
        # it changes (`da = db` before it)
        return False

    def live_before(self, stmts, live_out):
        """Names live before stmts (nothing is changed)."""
        live = set(live_out)
        for s in reversed(stmts):
            live = self.live_in(s, live)
        return live

    def loop_head(self, s, live):
        """Names live at the top of each iteration of a loop followed by `live`."""
        entry = self.heads.get(id(s))
        if entry is None:
            entry = self.heads[id(s)] = (s, {})
        key = frozenset(live)
        found = entry[1].get(key)
        if found is not None:
            return set(found)
        if isinstance(s, gast.For):
            targets = _stores(s.target)
            head = set(live)
        else:
            targets = set()
            head = set(live) | self.loads(s.test)
        while True:
            new = head | (self.live_before(s.body, head) - targets)
            if new == head:
                break
            head = new
        entry[1][key] = frozenset(head)
        return head

    def changed(self, s):
        """The body of loop s changed: forget its heads."""
        self.heads.pop(id(s), None)

    def live_in(self, s, live):
        """Names live before s, given those live after it (s as eliminate() would leave it).

        `live` is the caller's own set: it may be changed and returned.
        """
        if self.dead(s, live):
            return live
        pairs = self._fact("pairs", s, _name_pairs)
        if pairs is not None:
            kept = [v for t, v in pairs if t.id in live or not _no_call(v)]
            live -= self.stored(s)
            for v in kept:
                live |= self.loads(v)
            return live
        if _plain_assign(s):
            live -= self.stored(s)
            live |= self.loads(s.value)
            return live
        if isinstance(s, gast.AugAssign):
            live.add(s.target.id) if isinstance(s.target, gast.Name) else live.update(self.loads(s.target))
            live |= self.loads(s.value)
            return live
        if isinstance(s, gast.If):
            return self.live_before(s.body, live) | self.live_before(s.orelse, live) | self.loads(s.test)
        if isinstance(s, gast.For):
            return self.loop_head(s, live) | self.loads(s.iter)
        if isinstance(s, gast.While):
            return self.loop_head(s, live)
        if isinstance(s, gast.Return):
            return set(self.loads(s.value)) if s.value is not None else set()
        if isinstance(s, gast.FunctionDef):
            live.discard(s.name)
        live |= self.loads(s)
        return live

    def eliminate(self, stmts, live_out):
        live = set(live_out)
        out = []
        for s in reversed(stmts):
            if self.dead(s, live):
                continue
            pairs = self._fact("pairs", s, _name_pairs)
            if pairs is not None:
                s = _kept_pairs(s, pairs, live)
            if isinstance(s, gast.If):
                s.body = self.eliminate(s.body, live)[0]
                s.orelse = self.eliminate(s.orelse, live)[0]
                if not s.body and not s.orelse and _pure_expr(s.test):
                    continue
                s.body = s.body or [gast.Pass()]
            elif isinstance(s, (gast.For, gast.While)):
                s.body = self.eliminate(s.body, self.loop_head(s, live))[0]
                self.changed(s)
                if not s.body and isinstance(s, gast.For) and _pure_expr(s.iter):
                    continue
                s.body = s.body or [gast.Pass()]
            live = self.live_in(s, live)
            out.append(s)
        out.reverse()
        return out, live


def eliminate(stmts, live_out=frozenset()):
    """(statements without dead assignments, names live before them)."""
    return _Pass().eliminate(stmts, live_out)


def _pure_expr(e):
    return not any(isinstance(n, gast.Call) and not (isinstance(n.func, gast.Name) and n.func.id in ("range", "len"))
                   for n in astutil.walk(e))
