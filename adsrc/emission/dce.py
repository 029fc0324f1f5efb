"""Dead code elimination on generated code.

A gradient needs only part of the forward computation: the values the
backward pass reads. `eliminate(stmts)` removes assignments whose results
nothing reads, including inside loops (a carried value no iteration needs is
dropped with its loop update). Only statements known to be pure are removed:
assignments without calls, and calls marked `adsrc_pure` by the
differentiator (derivative-rule operations). Everything else is kept.
"""

import gast

from .. import astutil


def _loads(node):
    return astutil.names_loaded(node)


def _stores(target):
    return {n.id for n in gast.walk(target) if isinstance(n, gast.Name)}


def _pure_value(s):
    if getattr(s, "adsrc_pure", False):
        return True
    return not any(isinstance(n, (gast.Call, gast.Yield, gast.Await)) for n in gast.walk(s.value))


def _dead(s, live):
    """Is s an assignment without effects whose result nothing reads?"""
    if isinstance(s, gast.Assign) and all(isinstance(t, (gast.Name, gast.Tuple)) for t in s.targets):
        stored = set().union(*(_stores(t) for t in s.targets))
        return not (stored & live) and _pure_value(s)
    if isinstance(s, gast.AugAssign):
        if isinstance(s.target, gast.Name):
            return s.target.id not in live and not any(isinstance(n, gast.Call) for n in gast.walk(s.value))
        # a change in place is kept: another name may hold the object it changes (`da = db` before it)
        return False
    return False


def _live_before(stmts, live_out):
    """Names live before stmts (nothing is changed)."""
    live = set(live_out)
    for s in reversed(stmts):
        live = _live_in(s, live)
    return live


def _loop_head(s, live):
    """Names live at the top of each iteration of a loop followed by `live`."""
    if isinstance(s, gast.For):
        targets = _stores(s.target)
        head = set(live)
    else:
        targets = set()
        head = set(live) | _loads(s.test)
    while True:
        new = head | (_live_before(s.body, head) - targets)
        if new == head:
            return head
        head = new


def _live_in(s, live):
    """Names live before s, given those live after it (s as eliminate() would leave it)."""
    if _dead(s, live):
        return live
    if isinstance(s, gast.Assign) and all(isinstance(t, (gast.Name, gast.Tuple)) for t in s.targets):
        return (live - set().union(*(_stores(t) for t in s.targets))) | _loads(s.value)
    if isinstance(s, gast.AugAssign):
        extra = {s.target.id} if isinstance(s.target, gast.Name) else _loads(s.target)
        return live | extra | _loads(s.value)
    if isinstance(s, gast.If):
        return _live_before(s.body, live) | _live_before(s.orelse, live) | _loads(s.test)
    if isinstance(s, gast.For):
        return _loop_head(s, live) | _loads(s.iter)
    if isinstance(s, gast.While):
        return _loop_head(s, live)
    if isinstance(s, gast.Return):
        return _loads(s.value) if s.value is not None else set()
    if isinstance(s, gast.FunctionDef):
        return (live - {s.name}) | _loads(s)
    return live | _loads(s)


def eliminate(stmts, live_out=frozenset()):
    """(statements without dead assignments, names live before them)."""
    live = set(live_out)
    out = []
    for s in reversed(stmts):
        if _dead(s, live):
            continue
        if isinstance(s, gast.If):
            s.body = eliminate(s.body, live)[0]
            s.orelse = eliminate(s.orelse, live)[0]
            if not s.body and not s.orelse and _pure_expr(s.test):
                continue
            s.body = s.body or [gast.Pass()]
        elif isinstance(s, (gast.For, gast.While)):
            s.body = eliminate(s.body, _loop_head(s, live))[0]
            if not s.body and isinstance(s, gast.For) and _pure_expr(s.iter):
                continue
            s.body = s.body or [gast.Pass()]
        live = _live_in(s, live)
        out.append(s)
    out.reverse()
    return out, live


def _pure_expr(e):
    return not any(isinstance(n, gast.Call) and not (isinstance(n.func, gast.Name) and n.func.id in ("range", "len"))
                   for n in gast.walk(e))
