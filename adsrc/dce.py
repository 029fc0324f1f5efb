"""Dead code elimination on generated code.

A gradient needs only part of the forward computation: the values the
backward pass reads. `eliminate(stmts)` removes assignments whose results
nothing reads, including inside loops (a carried value no iteration needs is
dropped with its loop update). Only statements known to be pure are removed:
assignments without calls, and calls marked `adsrc_pure` by the
differentiator (derivative-rule operations). Everything else is kept.
"""

import copy

import gast

from . import astutil


def _loads(node):
    return astutil.names_loaded(node)


def _pure_value(s):
    if getattr(s, "adsrc_pure", False):
        return True
    return not any(isinstance(n, (gast.Call, gast.Yield, gast.Await)) for n in gast.walk(s.value))


def _stores(target):
    return {n.id for n in gast.walk(target) if isinstance(n, gast.Name)}


def eliminate(stmts, live_out=frozenset()):
    """(statements without dead assignments, names live before them)."""
    live = set(live_out)
    out = []
    for s in reversed(stmts):
        keep, live = _stmt(s, live)
        if keep is not None:
            out.append(keep)
    out.reverse()
    return out, live


def _stmt(s, live):
    if isinstance(s, gast.Assign) and all(isinstance(t, (gast.Name, gast.Tuple)) for t in s.targets):
        stored = set().union(*(_stores(t) for t in s.targets))
        if not (stored & live) and _pure_value(s):
            return None, live
        return s, (live - stored) | _loads(s.value)
    if isinstance(s, gast.AugAssign):
        if isinstance(s.target, gast.Name):
            if s.target.id not in live and not any(isinstance(n, gast.Call) for n in gast.walk(s.value)):
                return None, live
            return s, live | {s.target.id} | _loads(s.value)
        base = s.target.value
        if isinstance(base, gast.Name) and base.id not in live:
            return None, live
        return s, live | _loads(s.target) | _loads(s.value)
    if isinstance(s, gast.If):
        body, lb = eliminate(s.body, live)
        orelse, lo = eliminate(s.orelse, live)
        if not body and not orelse and _pure_expr(s.test):
            return None, live
        s.body = body or [gast.Pass()]
        s.orelse = orelse
        return s, lb | lo | _loads(s.test)
    if isinstance(s, gast.For):
        targets = _stores(s.target)
        head = set(live)
        while True:
            # a trial pass on a copy: eliminating with a live set still growing would drop too much
            _, lb = eliminate(copy.deepcopy(s.body), head)
            new = head | (lb - targets)
            if new == head:
                break
            head = new
        body, lb = eliminate(s.body, head)
        if not body and _pure_expr(s.iter):
            return None, live
        s.body = body or [gast.Pass()]
        return s, head | _loads(s.iter)
    if isinstance(s, gast.While):
        head = set(live) | _loads(s.test)
        while True:
            _, lb = eliminate(copy.deepcopy(s.body), head)
            new = head | lb
            if new == head:
                break
            head = new
        body, _ = eliminate(s.body, head)
        s.body = body or [gast.Pass()]
        return s, head
    if isinstance(s, gast.Return):
        return s, _loads(s.value) if s.value is not None else set()
    if isinstance(s, gast.FunctionDef):
        return s, (live - {s.name}) | _loads(s)
    return s, live | _loads(s)


def _pure_expr(e):
    return not any(isinstance(n, gast.Call) and not (isinstance(n.func, gast.Name) and n.func.id in ("range", "len"))
                   for n in gast.walk(e))
